import { IdParams } from '../../contract/common.ts';
import { JobView } from '../../contract/dashboard.ts';
import {
  DashboardJobAnalysis,
  ExportQuery,
  KeepUsage,
  PlayerSettings,
  StoredPlayerSettings,
} from '../../contract/practice.ts';
import { keepJob, keepUsageOf, unkeepJob } from '../../jobs/actions/keep-job.ts';
import { renderExport } from '../../jobs/outputs/export-audio.ts';
import { presentJobAnalysis } from '../../jobs/outputs/job-analysis.ts';
import { audioFormatOf } from '../../domain/vocabulary.ts';
import { attachmentDisposition } from '../../storage/content-disposition.ts';
import { playerSettingsOf, savePlayerSettingsOf } from '../../jobs/player-settings.ts';
import { runningFacts } from '../../jobs/present/running-facts.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';
import { presentView } from '../present-job.ts';
import { ownJob } from './jobs.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };
const byId = { params: IdParams };

/**
 * Practice mode (issue 43): a job's beats and chords for the player, the player's settings saved
 * per job and account, and Keep (a job kept past the retention time, within the account's limit).
 */
export function practiceRoutes(rt: Runtime) {
  const view = async (accountId: string, id: string) => {
    const row = await ownJob(rt, accountId, id);
    return presentView(row, await runningFacts(rt, row), rt.blobs, rt.config.publicUrl);
  };
  return [
    defineRoute({
      ...base,
      ...byId,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id/analysis`,
      summary: 'Tempo, key, beats, downbeats and chords of a finished job, as GET /v1/jobs/{id}/analysis',
      status: 200,
      response: DashboardJobAnalysis,
      handler: async ({ request, params }) =>
        presentJobAnalysis(rt.blobs, await ownJob(rt, sessionOf(request).accountId, params.id)),
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id/player-settings`,
      summary: "The stem player's saved settings of this job (null until saved)",
      status: 200,
      response: StoredPlayerSettings,
      handler: async ({ request, params }) => {
        const accountId = sessionOf(request).accountId;
        await ownJob(rt, accountId, params.id);
        return { settings: await playerSettingsOf(rt.db, accountId, params.id) };
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'PUT',
      url: `${DASHBOARD_API}/jobs/:id/player-settings`,
      summary: "Save the stem player's settings of this job (tempo, pitch, mute, solo, volumes, loop, click)",
      body: PlayerSettings,
      status: 200,
      response: StoredPlayerSettings,
      handler: async ({ request, params, body }) => {
        await savePlayerSettingsOf(rt.db, sessionOf(request).accountId, params.id, body);
        return { settings: body };
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'POST',
      url: `${DASHBOARD_API}/jobs/:id/keep`,
      summary: 'Keep a completed job past the retention time, within the account limit',
      status: 200,
      response: JobView,
      handler: async ({ request, params }) => {
        const accountId = sessionOf(request).accountId;
        await keepJob(rt, accountId, params.id);
        return view(accountId, params.id);
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'DELETE',
      url: `${DASHBOARD_API}/jobs/:id/keep`,
      summary: 'Stop keeping a job: it goes back to retention (deleted one retention period from now)',
      status: 200,
      response: JobView,
      handler: async ({ request, params }) => {
        const accountId = sessionOf(request).accountId;
        await unkeepJob(rt, accountId, params.id);
        return view(accountId, params.id);
      },
    }),
    defineRoute({
      ...base,
      ...byId,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id/export`,
      summary: 'A stem or the mix at a tempo and pitch, as WAV, MP3 or FLAC, named after what it holds',
      query: ExportQuery,
      status: 200,
      response: null,
      handler: async ({ request, params, query, reply }) => {
        const row = await ownJob(rt, sessionOf(request).accountId, params.id);
        const gains = Object.fromEntries(
          (query.gains ?? '').split(',').flatMap((pair) => {
            const [name, gain] = pair.split(':');
            return name && gain ? [[name, Number(gain)]] : [];
          }),
        );
        const out = await renderExport({ blobs: rt.blobs, tools: rt.config.ffmpeg }, row, {
          what: query.what,
          format: audioFormatOf(query.format),
          tempo: query.tempo,
          pitch: query.pitch,
          gains,
        });
        reply
          .header('content-type', out.contentType)
          .header('content-length', String(out.size))
          .header('content-disposition', attachmentDisposition(out.fileName));
        return out.stream;
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/keep`,
      summary: 'What the account keeps past retention, and the limit',
      status: 200,
      response: KeepUsage,
      handler: async ({ request }) => keepUsageOf(rt, sessionOf(request).accountId),
    }),
  ];
}
