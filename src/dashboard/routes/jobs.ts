import type { z } from 'zod';
import { IdParams } from '../../contract/common.ts';
import {
  CreateDashboardJobRequest,
  DashboardJobCreated,
  DashboardUploadGrant,
  DashboardUploadRequest,
  JobPeaks,
  JobsPage,
  JobsQuery,
  JobView,
} from '../../contract/dashboard.ts';
import { ApiError } from '../../domain/errors.ts';
import type { JobKind } from '../../domain/job-kinds.ts';
import { grantUpload } from '../../uploads/grant.ts';
import { defineRoute } from '../../routing/route.ts';
import { createDenoiseJob } from '../../jobs/create/create-denoise-job.ts';
import { createStemJob } from '../../jobs/create/create-stem-job.ts';
import { createTrackJob, createVideoJob } from '../../jobs/create/create-media-job.ts';
import type { Runtime } from '../../runtime.ts';
import { findAccountJob } from '../../store/jobs.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';
import { jobPeaks } from '../../jobs/outputs/output-peaks.ts';
import { runningFacts } from '../../jobs/present/running-facts.ts';
import { searchJobs } from '../../jobs/search-jobs.ts';
import { presentSummary, presentView, relativeToSite } from '../present-job.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };

/** The signed-in account's job; another account's id is the same 404 as an unknown one. */
export async function ownJob(rt: Pick<Runtime, 'db'>, accountId: string, id: string) {
  const row = await findAccountJob(rt.db, accountId, null, id);
  if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
  return row;
}

export function jobRoutes(rt: Runtime) {
  return [
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs`,
      summary: 'Every kind of job in one list, newest first',
      query: JobsQuery,
      status: 200,
      response: JobsPage,
      handler: async ({ request, query }) => {
        const page = await searchJobs(rt.db, { accountId: sessionOf(request).accountId, ...query });
        return {
          jobs: await Promise.all(page.rows.map(async (r) => presentSummary(r, await runningFacts(rt, r)))),
          pagination: { total: page.total, limit: query.limit, offset: query.offset, hasMore: page.hasMore },
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id`,
      summary: 'One job with signed links to its outputs',
      params: IdParams,
      status: 200,
      response: JobView,
      handler: async ({ request, params }) => {
        const row = await ownJob(rt, sessionOf(request).accountId, params.id);
        return presentView(row, await runningFacts(rt, row), rt.blobs, rt.config.publicUrl);
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/jobs/:id/peaks`,
      summary: 'Waveform peaks of each output (and of the input of a denoise job)',
      params: IdParams,
      status: 200,
      response: JobPeaks,
      handler: async ({ request, params }) => {
        const row = await ownJob(rt, sessionOf(request).accountId, params.id);
        return { outputs: await jobPeaks({ blobs: rt.blobs, tools: rt.config.ffmpeg }, row) };
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/uploads`,
      summary: 'An upload grant, as POST /v1/upload',
      body: DashboardUploadRequest,
      status: 200,
      response: DashboardUploadGrant,
      handler: async ({ request, body }) => {
        const grant = await grantUpload(rt, sessionOf(request).accountId, body);
        return { ...grant, uploadUrl: relativeToSite(grant.uploadUrl, rt.config.publicUrl) };
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/jobs`,
      summary: 'Create a job of any kind, through the same service functions as the API',
      body: CreateDashboardJobRequest,
      status: 201,
      response: DashboardJobCreated,
      handler: async ({ request, body }) => ({
        id: await createJob(rt, sessionOf(request).accountId, body),
        kind: body.kind,
      }),
    }),
  ];
}

type CreateBody = z.infer<typeof CreateDashboardJobRequest>;

/**
 * Each kind goes to the service function its API route uses, so limits and errors are the API's.
 * Keyed by the catalog: a kind without its creator fails to compile.
 */
const CREATORS: {
  [K in JobKind]: (rt: Runtime, accountId: string, body: Extract<CreateBody, { kind: K }>) => Promise<string>;
} = {
  stem: async (rt, accountId, { kind: _, ...rest }) => (await createStemJob(rt, accountId, rest)).id,
  video: async (rt, accountId, { kind: _, ...rest }) => (await createVideoJob(rt, accountId, rest)).id,
  track: async (rt, accountId, { kind: _, ...rest }) => (await createTrackJob(rt, accountId, rest)).id,
  // The API's declared size and duration are informative only; the server bills what it measured.
  denoise: async (rt, accountId, body) =>
    (
      await createDenoiseJob(rt, accountId, {
        inputFileName: body.fileName,
        inputFilePath: body.uploadKey,
        inputFileSize: 0,
        durationSeconds: 0,
        outputFormat: body.outputFormat,
      })
    ).id,
};

function createJob<K extends JobKind>(rt: Runtime, accountId: string, body: Extract<CreateBody, { kind: K }>) {
  return (CREATORS[body.kind as K] as (rt: Runtime, a: string, b: typeof body) => Promise<string>)(rt, accountId, body);
}
