import { IdParams } from '../../contract/common.ts';
import { Capabilities, JobView, RenameJobRequest } from '../../contract/dashboard.ts';
import { cancelJob } from '../../jobs/actions/cancel-job.ts';
import { capabilities } from '../../jobs/capabilities.ts';
import { deleteJob } from '../../jobs/actions/delete-job.ts';
import { outputsZip } from '../../jobs/outputs/outputs-zip.ts';
import { runningFacts } from '../../jobs/present/running-facts.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { attachmentDisposition } from '../../storage/content-disposition.ts';
import { getBalanceSeconds } from '../../store/credits.ts';
import { renameJob } from '../../jobs/actions/rename-job.ts';
import type { JobRow } from '../../store/jobs.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';
import { ownJob } from './jobs.ts';
import { presentView } from '../present-job.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };
const byId = { params: IdParams };

/** What a person does to a job besides making it: the form's capabilities, cancel, rename, delete, the ZIP. */
export function jobActionRoutes(rt: Runtime) {
  const view = async (row: JobRow) => presentView(row, await runningFacts(rt, row), rt.blobs, rt.config.publicUrl);
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/capabilities`,
      summary: 'What this server can do now: output types and tiers whose models are installed, limits, pace',
      status: 200,
      response: Capabilities,
      handler: async ({ request }) => ({
        ...(await capabilities(rt)),
        balanceSeconds: await getBalanceSeconds(rt.db, sessionOf(request).accountId),
      }),
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'POST',
      url: `${DASHBOARD_API}/jobs/:id/cancel`,
      summary: 'Cancel a pending or processing job (credits released), as POST /v1/jobs/{id}/cancel',
      status: 200,
      response: JobView,
      handler: async ({ request, params }) => view(await cancelJob(rt, sessionOf(request).accountId, null, params.id)),
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'PATCH',
      url: `${DASHBOARD_API}/jobs/:id`,
      summary: 'Rename a job (an empty name goes back to its file name or title)',
      body: RenameJobRequest,
      status: 200,
      response: JobView,
      handler: async ({ request, params, body }) => {
        const accountId = sessionOf(request).accountId;
        await renameJob(rt.db, accountId, params.id, body.name || null);
        return view(await ownJob(rt, accountId, params.id));
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'DELETE',
      url: `${DASHBOARD_API}/jobs/:id`,
      summary: 'Delete a finished job and its files',
      status: 204,
      response: null,
      handler: async ({ request, params, reply }) => {
        await deleteJob(rt, sessionOf(request).accountId, params.id);
        return reply.code(204).send();
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id/outputs.zip`,
      summary: 'Every output of a completed job in one streamed ZIP, named after the song',
      status: 200,
      response: null,
      handler: async ({ request, params, reply }) => {
        const zip = await outputsZip(rt.blobs, await ownJob(rt, sessionOf(request).accountId, params.id));
        reply
          .header('content-type', 'application/zip')
          .header('content-disposition', attachmentDisposition(zip.fileName));
        if (zip.size !== null) reply.header('content-length', String(zip.size));
        return zip.stream;
      },
    }),
  ];
}
