import type { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import { IdParams, OffsetListQuery } from '../../contract/common.ts';
import {
  CreateSoundcloudJobRequest,
  CreateTrackJobRequest,
  CreateVideoJobRequest,
  CreateYoutubeJobRequest,
  TrackJobCreated,
  TrackJobDetail,
  TrackJobList,
  VideoJobCreated,
  VideoJobDetail,
  VideoJobList,
} from '../../contract/media-jobs.ts';
import { ApiError, type ErrorCode } from '../../domain/errors.ts';
import { createTrackJob, createVideoJob } from '../../jobs/create/create-media-job.ts';
import { presentTrackJob, presentVideoJob } from '../../jobs/present/present-media-job.ts';
import type { IdempotentAnswer } from '../../store/idempotency-keys.ts';
import { findAccountJob, listJobs, type JobRow } from '../../store/jobs.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { Runtime } from '../../runtime.ts';
import { pollingHints } from '../polling.ts';

/**
 * A media resource: created from a site's address, read back with the site's fields, under the
 * contract's name and under the hosted service's, whose body `H` names the address differently.
 */
interface MediaResource<B, H> {
  kind: 'video' | 'track';
  /** `/v1/video-jobs`, and the hosted name of the same resource. */
  path: string;
  hostedPath: string;
  /** The hosted body's address field, for the summary. */
  hostedField: string;
  tag: string;
  description: string;
  /** The hosted create route's description, when it has one. */
  hostedDescription?: string;
  body: z.ZodType<B>;
  hostedBody: z.ZodType<H>;
  /** The hosted body as the contract's, and the route family it came through (its webhook `data.type`). */
  fromHosted(body: H): B;
  create(accountId: string, body: B, hosted: boolean, idempotent?: IdempotentAnswer): Promise<unknown>;
  created: z.ZodType;
  detail: z.ZodType;
  list: z.ZodType;
  errors: readonly ErrorCode[];
  present(row: JobRow, blobs: BlobStore): Promise<unknown>;
}

const SITE_ERRORS = ['AUDIO_TOO_LONG', 'AUDIO_TOO_SHORT', 'FILE_TOO_LARGE', 'INSUFFICIENT_CREDITS'] as const;

const videoResource = (rt: Runtime): MediaResource<VideoBody, z.infer<typeof CreateYoutubeJobRequest>> => ({
  kind: 'video',
  path: '/v1/video-jobs',
  hostedPath: '/v1/youtube-jobs',
  hostedField: 'youtubeUrl',
  tag: 'Video jobs',
  description:
    'Reads the video metadata with yt-dlp, holds its duration in credits and queues the download. ' +
    'Completed outputs are fullAudio plus the requested stems.',
  body: CreateVideoJobRequest,
  hostedBody: CreateYoutubeJobRequest,
  fromHosted: ({ youtubeUrl, ...rest }) => ({ ...rest, videoUrl: youtubeUrl }),
  create: (accountId, body, hosted, idempotent) =>
    createVideoJob(rt, accountId, body, hosted ? 'youtube' : 'video', idempotent),
  created: VideoJobCreated,
  detail: VideoJobDetail,
  list: VideoJobList,
  errors: [
    'VALIDATION_ERROR',
    'INVALID_VIDEO_URL',
    'VIDEO_NOT_FOUND',
    'VIDEO_DURATION_UNKNOWN',
    ...SITE_ERRORS,
    'URL_NOT_ALLOWED',
    'SERVICE_UNAVAILABLE',
  ],
  present: presentVideoJob,
});

const trackResource = (rt: Runtime): MediaResource<TrackBody, z.infer<typeof CreateSoundcloudJobRequest>> => ({
  kind: 'track',
  path: '/v1/track-jobs',
  hostedPath: '/v1/soundcloud-jobs',
  hostedField: 'soundcloudUrl',
  tag: 'Track jobs',
  description: TRACK_DESCRIPTION,
  hostedDescription: TRACK_DESCRIPTION,
  body: CreateTrackJobRequest,
  hostedBody: CreateSoundcloudJobRequest,
  fromHosted: ({ soundcloudUrl, ...rest }) => ({ ...rest, trackUrl: soundcloudUrl }),
  create: (accountId, body, hosted, idempotent) =>
    createTrackJob(rt, accountId, body, hosted ? 'soundcloud' : 'track', idempotent),
  created: TrackJobCreated,
  detail: TrackJobDetail,
  list: TrackJobList,
  errors: [
    'VALIDATION_ERROR',
    'INVALID_TRACK_URL',
    'TRACK_NOT_FOUND',
    ...SITE_ERRORS,
    'URL_NOT_ALLOWED',
    'SERVICE_UNAVAILABLE',
  ],
  present: presentTrackJob,
});

type VideoBody = z.infer<typeof CreateVideoJobRequest>;
type TrackBody = z.infer<typeof CreateTrackJobRequest>;

const TRACK_DESCRIPTION =
  'Reads the track metadata with yt-dlp and queues the download. When the duration is unknown, creditsRequired is null, ' +
  'trackDurationEstimated is true and 240 credits are held, reconciled to the real duration on completion. ' +
  'A private or unavailable track is 404 TRACK_NOT_FOUND.';

/** Every route of the video and track resources (docs/imports.md): create, list and read, under both names. */
export function mediaJobRoutes(rt: Runtime) {
  return [...resourceRoutes(rt, videoResource(rt)), ...resourceRoutes(rt, trackResource(rt))];
}

function resourceRoutes<B, H>(rt: Runtime, r: MediaResource<B, H>) {
  const create = { tag: r.tag, auth: 'apiKey' as const, status: 201, response: r.created, errors: [...r.errors] };
  return [
    defineRoute({
      ...create,
      method: 'POST',
      url: r.path,
      summary: `Create a job from a ${r.kind} address`,
      description: r.description,
      body: r.body,
      handler: ({ body, auth, idempotent }) => r.create(auth.accountId, body, false, idempotent),
    }),
    defineRoute({
      ...create,
      method: 'POST',
      url: r.hostedPath,
      summary: `Create a ${r.kind} job (hosted-service name; body ${r.hostedField})`,
      description: r.hostedDescription,
      body: r.hostedBody,
      handler: ({ body, auth, idempotent }) => r.create(auth.accountId, r.fromHosted(body), true, idempotent),
    }),
    ...readRoutes(rt, r, r.path),
    ...readRoutes(rt, r, r.hostedPath),
  ];
}

/** List and read under one path (the contract's name or the hosted one). */
function readRoutes<B, H>(deps: { db: Runtime['db']; blobs: BlobStore }, r: MediaResource<B, H>, path: string) {
  return [
    defineRoute({
      method: 'GET',
      url: path,
      summary: `List ${r.kind} jobs, newest first`,
      tag: r.tag,
      auth: 'apiKey',
      query: OffsetListQuery,
      status: 200,
      response: r.list,
      errors: ['VALIDATION_ERROR'],
      handler: async ({ query, auth }) => {
        const { rows, total, hasMore } = await listJobs(deps.db, { accountId: auth.accountId, kind: r.kind, ...query });
        return {
          jobs: await Promise.all(rows.map((row) => r.present(row, deps.blobs))),
          pagination: { total, limit: query.limit, offset: query.offset, hasMore },
        };
      },
    }),
    defineRoute({
      method: 'GET',
      url: `${path}/:id`,
      summary: `Get a ${r.kind} job; outputs carry fresh 1-hour download URLs`,
      tag: r.tag,
      auth: 'apiKey',
      rateBucket: 'poll',
      params: IdParams,
      status: 200,
      response: r.detail,
      errors: ['JOB_NOT_FOUND'],
      handler: async ({ params, auth, request, reply }) => {
        const row = await findAccountJob(deps.db, auth.accountId, r.kind, params.id);
        if (!row) throw new ApiError('JOB_NOT_FOUND', `No ${r.kind} job '${params.id}'.`);
        return pollingHints(request, reply, row, await r.present(row, deps.blobs));
      },
    }),
  ];
}
