import { defineRoute } from '../routing/route.ts';
import {
  CreateSoundcloudJobRequest,
  CreateTrackJobRequest,
  TrackJobCreated,
  TrackJobDetail,
  TrackJobList,
} from '../contract/track-jobs.ts';
import { createTrackJob } from '../jobs/create-track-job.ts';
import { presentTrackJob } from '../jobs/present-media-job.ts';
import type { Runtime } from '../runtime.ts';
import { mediaReadRoutes } from './media-read-routes.ts';

const READ = {
  kind: 'track',
  tag: 'Track jobs',
  detail: TrackJobDetail,
  list: TrackJobList,
  present: presentTrackJob,
} as const;

const CREATE_ERRORS = [
  'VALIDATION_ERROR',
  'INVALID_TRACK_URL',
  'TRACK_NOT_FOUND',
  'AUDIO_TOO_LONG',
  'AUDIO_TOO_SHORT',
  'FILE_TOO_LARGE',
  'INSUFFICIENT_CREDITS',
  'URL_NOT_ALLOWED',
  'SERVICE_UNAVAILABLE',
] as const;

const CREATE_DESCRIPTION =
  'Reads the track metadata with yt-dlp and queues the download. When the duration is unknown, creditsRequired is null, ' +
  'trackDurationEstimated is true and 240 credits are held, reconciled to the real duration on completion. ' +
  'A private or unavailable track is 404 TRACK_NOT_FOUND.';

/**
 * `/track-jobs`: vocals + instrumental (MP3, BEST) of a track-site address (docs/imports.md), and
 * the same resource under the hosted service's name `/soundcloud-jobs` (body `soundcloudUrl`;
 * docs/api-compat.md).
 */
export function trackJobRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/track-jobs',
      summary: 'Create a job from a track address',
      description: CREATE_DESCRIPTION,
      tag: 'Track jobs',
      auth: 'apiKey',
      body: CreateTrackJobRequest,
      status: 201,
      response: TrackJobCreated,
      errors: [...CREATE_ERRORS],
      handler: ({ body, auth, idempotent }) => createTrackJob(rt, auth.accountId, body, 'track', idempotent),
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/soundcloud-jobs',
      summary: 'Create a track job (hosted-service name; body soundcloudUrl)',
      description: CREATE_DESCRIPTION,
      tag: 'Track jobs',
      auth: 'apiKey',
      body: CreateSoundcloudJobRequest,
      status: 201,
      response: TrackJobCreated,
      errors: [...CREATE_ERRORS],
      handler: ({ body: { soundcloudUrl, ...rest }, auth, idempotent }) =>
        createTrackJob(rt, auth.accountId, { ...rest, trackUrl: soundcloudUrl }, 'soundcloud', idempotent),
    }),
    ...mediaReadRoutes(rt, { ...READ, path: '/v1/track-jobs' }),
    ...mediaReadRoutes(rt, { ...READ, path: '/v1/soundcloud-jobs' }),
  ];
}
