import { defineRoute } from '../../routing/route.ts';
import { IdParams, OffsetListQuery } from '../../contract/common.ts';
import { CreateJobRequest, JobCreated, JobDetail, JobList } from '../../contract/jobs.ts';
import { ApiError } from '../../domain/errors.ts';
import { findAccountJob, listJobs } from '../../store/jobs.ts';
import { createStemJob } from '../../jobs/create/create-stem-job.ts';
import { presentStemJob, presentStemListItem } from '../../jobs/present/present-stem-job.ts';
import type { Runtime } from '../../runtime.ts';
import { pollingHints } from '../polling.ts';

export function jobRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/jobs',
      summary: 'Create a stem separation job',
      description:
        'Exactly one of uploadKey (from POST /upload) or sourceUrl. Credits (the duration in seconds, rounded up) are held at creation. An upload PUT straight to S3 (scale-out) is not measured yet: creditsRequired is then an estimate held from its size, and the worker decodes the file before separating it and settles the hold to its decoded length; a file that is not audio, too long, or longer than the balance covers fails the job (errorDetails.code UNSUPPORTED_FORMAT, AUDIO_NOT_DECODABLE, AUDIO_TOO_LONG, AUDIO_TOO_SHORT, FILE_TOO_LARGE or INSUFFICIENT_CREDITS) and releases what was held.',
      tag: 'Stem jobs',
      auth: 'apiKey',
      body: CreateJobRequest,
      status: 201,
      response: JobCreated,
      errors: [
        'VALIDATION_ERROR',
        'MISSING_INPUT',
        'CONFLICTING_INPUT',
        'UPLOAD_NOT_FOUND',
        'UNSUPPORTED_FORMAT',
        'AUDIO_NOT_DECODABLE',
        'FILE_TOO_LARGE',
        'AUDIO_TOO_LONG',
        'AUDIO_TOO_SHORT',
        'URL_NOT_ALLOWED',
        'SOURCE_FETCH_FAILED',
        'MODEL_NOT_INSTALLED',
        'INSUFFICIENT_CREDITS',
      ],
      handler: ({ body, auth, idempotent }) => createStemJob(rt, auth.accountId, body, idempotent),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/jobs',
      summary: 'List stem jobs, newest first',
      tag: 'Stem jobs',
      auth: 'apiKey',
      query: OffsetListQuery,
      status: 200,
      response: JobList,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const { rows, total, hasMore } = await listJobs(rt.db, { accountId: auth.accountId, kind: 'stem', ...query });
        return {
          jobs: rows.map(presentStemListItem),
          pagination: { total, limit: query.limit, offset: query.offset, hasMore },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/jobs/:id',
      summary: 'Get a stem job; outputs carry fresh 1-hour download URLs',
      tag: 'Stem jobs',
      auth: 'apiKey',
      rateBucket: 'poll',
      params: IdParams,
      status: 200,
      response: JobDetail,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth, request, reply }) => {
        const row = await findAccountJob(rt.db, auth.accountId, 'stem', params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${params.id}'.`);
        return pollingHints(request, reply, row, await presentStemJob(row, rt.blobs));
      },
    }),
  ];
}
