import { defineRoute } from '../routing/route.ts';
import {
  CreateVideoJobRequest,
  CreateYoutubeJobRequest,
  VideoJobCreated,
  VideoJobDetail,
  VideoJobList,
} from '../contract/video-jobs.ts';
import { createVideoJob } from '../jobs/create-video-job.ts';
import { presentVideoJob } from '../jobs/present-media-job.ts';
import type { Runtime } from '../runtime.ts';
import { mediaReadRoutes } from './media-read-routes.ts';

const READ = {
  kind: 'video',
  tag: 'Video jobs',
  detail: VideoJobDetail,
  list: VideoJobList,
  present: presentVideoJob,
} as const;

const CREATE_ERRORS = [
  'VALIDATION_ERROR',
  'INVALID_VIDEO_URL',
  'VIDEO_NOT_FOUND',
  'VIDEO_DURATION_UNKNOWN',
  'AUDIO_TOO_LONG',
  'AUDIO_TOO_SHORT',
  'FILE_TOO_LARGE',
  'INSUFFICIENT_CREDITS',
  'URL_NOT_ALLOWED',
  'SERVICE_UNAVAILABLE',
] as const;

/**
 * `/video-jobs`: stem separation of a video-site address (docs/imports.md), and the same resource
 * under the hosted service's name `/youtube-jobs` (body `youtubeUrl`; docs/api-compat.md). Both
 * list and read every video job of the account; the name a job was created through is its webhook
 * `data.type`.
 */
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
      errors: [...CREATE_ERRORS],
      handler: ({ body, auth, idempotent }) => createVideoJob(rt, auth.accountId, body, 'video', idempotent),
    }),
    defineRoute({
      method: 'POST',
      url: '/v1/youtube-jobs',
      summary: 'Create a video job (hosted-service name; body youtubeUrl)',
      tag: 'Video jobs',
      auth: 'apiKey',
      body: CreateYoutubeJobRequest,
      status: 201,
      response: VideoJobCreated,
      errors: [...CREATE_ERRORS],
      handler: ({ body: { youtubeUrl, ...rest }, auth, idempotent }) =>
        createVideoJob(rt, auth.accountId, { ...rest, videoUrl: youtubeUrl }, 'youtube', idempotent),
    }),
    ...mediaReadRoutes(rt, { ...READ, path: '/v1/video-jobs' }),
    ...mediaReadRoutes(rt, { ...READ, path: '/v1/youtube-jobs' }),
  ];
}
