import { defineRoute } from './route.ts';
import { IdParams, OffsetListQuery } from '../contract/common.ts';
import { CreateTrackJobRequest, TrackJobCreated, TrackJobDetail, TrackJobList } from '../contract/track-jobs.ts';
import { ApiError } from '../domain/errors.ts';
import { findAccountJob, listJobs } from '../store/jobs.ts';
import { createTrackJob } from '../jobs/create-track-job.ts';
import { presentTrackJob } from '../jobs/present-media-job.ts';
import type { Runtime } from '../runtime.ts';

/** `/track-jobs`: vocals + instrumental (MP3, BEST) of a track-site address (docs/imports.md). */
export function trackJobRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/track-jobs',
      summary: 'Create a job from a track address',
      description:
        'Reads the track metadata with yt-dlp and queues the download. When the duration is unknown, creditsRequired is null, ' +
        'trackDurationEstimated is true and 240 credits are held, reconciled to the real duration on completion. ' +
        'A private or unavailable track is 404 TRACK_NOT_FOUND.',
      tag: 'Track jobs',
      auth: 'apiKey',
      body: CreateTrackJobRequest,
      status: 201,
      response: TrackJobCreated,
      errors: [
        'VALIDATION_ERROR',
        'INVALID_TRACK_URL',
        'TRACK_NOT_FOUND',
        'AUDIO_TOO_LONG',
        'AUDIO_TOO_SHORT',
        'FILE_TOO_LARGE',
        'INSUFFICIENT_CREDITS',
        'SERVICE_UNAVAILABLE',
      ],
      handler: ({ body, auth }) => createTrackJob(rt, auth.accountId, body),
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/track-jobs',
      summary: 'List track jobs, newest first',
      tag: 'Track jobs',
      auth: 'apiKey',
      query: OffsetListQuery,
      status: 200,
      response: TrackJobList,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const { rows, total, hasMore } = await listJobs(rt.db, { accountId: auth.accountId, kind: 'track', ...query });
        return {
          jobs: await Promise.all(rows.map((row) => presentTrackJob(row, rt.store))),
          pagination: { total, limit: query.limit, offset: query.offset, hasMore },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: '/v1/track-jobs/:id',
      summary: 'Get a track job; outputs carry fresh 1-hour download URLs',
      tag: 'Track jobs',
      auth: 'apiKey',
      params: IdParams,
      status: 200,
      response: TrackJobDetail,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth }) => {
        const row = await findAccountJob(rt.db, auth.accountId, 'track', params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No track job '${params.id}'.`);
        return presentTrackJob(row, rt.store);
      },
    }),
  ];
}
