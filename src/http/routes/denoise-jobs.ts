import { defineRoute } from '../../routing/route.ts';
import { IdParams } from '../../contract/common.ts';
import {
  CreateDenoiseJobRequest,
  DenoiseJob,
  DenoiseJobCreated,
  DenoiseJobList,
  DenoiseListQuery,
} from '../../contract/denoise.ts';
import { ApiError } from '../../domain/errors.ts';
import { findAccountJob, listJobs } from '../../store/jobs.ts';
import { createDenoiseJob } from '../../jobs/create/create-denoise-job.ts';
import { presentDenoiseJob } from '../../jobs/present/present-denoise-job.ts';
import { downloadDenoiseRoute } from './download-denoise.ts';
import type { Runtime } from '../../runtime.ts';
import { pollingHints } from '../polling.ts';

/** `/v1/denoise-jobs` (create, list, get) and the site-level download route. */
export function denoiseJobRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/denoise-jobs',
      summary: 'Create a voice-cleaning (denoise) job',
      description:
        'inputFilePath is an upload key (POST /files/upload). Credits are the MEASURED duration rounded up, held at creation; the declared durationSeconds and inputFileSize are not billed. An upload PUT straight to S3 (scale-out, POST /upload) is measured by the worker before cleaning: an estimate is held, then settled to the decoded length, as for POST /jobs.',
      tag: 'Denoise jobs',
      auth: 'apiKey',
      body: CreateDenoiseJobRequest,
      status: 200,
      response: DenoiseJobCreated,
      errors: [
        'VALIDATION_ERROR',
        'UPLOAD_NOT_FOUND',
        'FILE_TOO_LARGE',
        'AUDIO_TOO_LONG',
        'AUDIO_TOO_SHORT',
        'MODEL_NOT_INSTALLED',
        'INSUFFICIENT_CREDITS',
      ],
      handler: ({ body, auth, idempotent }) => createDenoiseJob(rt, auth.accountId, body, idempotent),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/denoise-jobs',
      summary: 'List denoise jobs, newest first',
      tag: 'Denoise jobs',
      auth: 'apiKey',
      query: DenoiseListQuery,
      status: 200,
      response: DenoiseJobList,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const offset = (query.page - 1) * query.limit;
        const { rows, total, hasMore } = await listJobs(rt.db, {
          accountId: auth.accountId,
          kind: 'denoise',
          status: query.status,
          limit: query.limit,
          offset,
        });
        const paging = { total, page: query.page, limit: query.limit };
        return {
          jobs: rows.map((row) => presentDenoiseJob(row, rt.config.publicUrl)),
          pagination: { ...paging, hasMore },
          ...paging,
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/denoise-jobs/:id',
      summary: 'Get a denoise job',
      description: 'Poll until COMPLETED or FAILED. When COMPLETED, download the cleaned file from downloadUrl.',
      tag: 'Denoise jobs',
      auth: 'apiKey',
      rateBucket: 'poll',
      params: IdParams,
      status: 200,
      response: DenoiseJob,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth, request, reply }) => {
        const row = await findAccountJob(rt.db, auth.accountId, 'denoise', params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No denoise job '${params.id}'.`);
        return pollingHints(request, reply, row, presentDenoiseJob(row, rt.config.publicUrl));
      },
    }),
    downloadDenoiseRoute(rt),
  ];
}
