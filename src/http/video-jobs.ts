import { defineRoute } from './route.ts';
import { IdParams, OffsetListQuery } from '../contract/common.ts';
import { CreateVideoJobRequest, VideoJobCreated, VideoJobDetail, VideoJobList } from '../contract/video-jobs.ts';
import { ApiError } from '../domain/errors.ts';
import { findAccountJob, listJobs } from '../store/jobs.ts';
import { createVideoJob } from '../jobs/create-video-job.ts';
import { presentVideoJob } from '../jobs/present-media-job.ts';
import type { Runtime } from '../runtime.ts';

/** `/video-jobs`: stem separation of a video-site address (docs/imports.md). */
export function videoJobRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/video-jobs',
      summary: 'Create a job from a video address',
      description:
        'Reads the video metadata with yt-dlp, holds its duration in credits and queues the download. ' +
        'Completed outputs are fullAudio plus the requested stems.',
      tag: 'Video jobs',
      auth: 'apiKey',
      body: CreateVideoJobRequest,
      status: 201,
      response: VideoJobCreated,
      errors: [
        'VALIDATION_ERROR',
        'INVALID_VIDEO_URL',
        'VIDEO_NOT_FOUND',
        'VIDEO_DURATION_UNKNOWN',
        'AUDIO_TOO_LONG',
        'AUDIO_TOO_SHORT',
        'FILE_TOO_LARGE',
        'INSUFFICIENT_CREDITS',
        'SERVICE_UNAVAILABLE',
      ],
      handler: ({ body, auth }) => createVideoJob(rt, auth.accountId, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/video-jobs',
      summary: 'List video jobs, newest first',
      tag: 'Video jobs',
      auth: 'apiKey',
      query: OffsetListQuery,
      status: 200,
      response: VideoJobList,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const { rows, total, hasMore } = await listJobs(rt.db, { accountId: auth.accountId, kind: 'video', ...query });
        return {
          jobs: await Promise.all(rows.map((row) => presentVideoJob(row, rt.store))),
          pagination: { total, limit: query.limit, offset: query.offset, hasMore },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/video-jobs/:id',
      summary: 'Get a video job; outputs carry fresh 1-hour download URLs',
      tag: 'Video jobs',
      auth: 'apiKey',
      params: IdParams,
      status: 200,
      response: VideoJobDetail,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth }) => {
        const row = await findAccountJob(rt.db, auth.accountId, 'video', params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No video job '${params.id}'.`);
        return presentVideoJob(row, rt.store);
      },
    }),
  ];
}
