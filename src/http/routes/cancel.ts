import type { z } from 'zod';
import { IdParams } from '../../contract/common.ts';
import { DenoiseJob } from '../../contract/denoise.ts';
import { JobDetail } from '../../contract/jobs.ts';
import { TrackJobDetail, VideoJobDetail } from '../../contract/media-jobs.ts';
import { JOB_KINDS, type JobKind } from '../../domain/job-kinds.ts';
import { cancelJob } from '../../jobs/actions/cancel-job.ts';
import { presentDenoiseJob } from '../../jobs/present/present-denoise-job.ts';
import { presentTrackJob, presentVideoJob } from '../../jobs/present/present-media-job.ts';
import { presentStemJob } from '../../jobs/present/present-stem-job.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import type { JobRow } from '../../store/jobs.ts';

interface Cancellable {
  path: string;
  tag: string;
  detail: z.ZodType;
  present(rt: Runtime, row: JobRow): Promise<unknown> | unknown;
}

const RESOURCES: Record<JobKind, Cancellable> = {
  stem: {
    path: '/v1/jobs',
    tag: 'Stem jobs',
    detail: JobDetail,
    present: (rt, row) => presentStemJob(row, rt.blobs),
  },
  video: {
    path: '/v1/video-jobs',
    tag: 'Video jobs',
    detail: VideoJobDetail,
    present: (rt, row) => presentVideoJob(row, rt.blobs),
  },
  track: {
    path: '/v1/track-jobs',
    tag: 'Track jobs',
    detail: TrackJobDetail,
    present: (rt, row) => presentTrackJob(row, rt.blobs),
  },
  denoise: {
    path: '/v1/denoise-jobs',
    tag: 'Denoise jobs',
    detail: DenoiseJob,
    present: (rt, row) => presentDenoiseJob(row, rt.config.publicUrl),
  },
};

/**
 * `POST /v1/<jobs>/{id}/cancel` on each job resource (the shape of Stripe's, OpenAI's and
 * Replicate's cancel actions): a PENDING or PROCESSING job stops, its credits are released, and it
 * reads FAILED with `progressPhase: cancelled` (the contract has no other terminal state); the
 * answer is the job as its resource shows it. Cancelling it again answers the same; a job that had
 * already finished is 409 JOB_NOT_CANCELLABLE.
 */
export function cancelRoutes(rt: Runtime) {
  return JOB_KINDS.map((kind) => {
    const r = RESOURCES[kind];
    return defineRoute({
      method: 'POST',
      url: `${r.path}/:id/cancel`,
      summary: `Cancel a pending or processing ${kind} job`,
      description:
        'Stops the job and releases its held credits. It then reads FAILED with progressPhase "cancelled" and ' +
        'errorDetails.code JOB_CANCELLED, and job.failed is sent to subscribed webhooks. Repeating the call ' +
        'answers the cancelled job again; a job that already completed or failed is 409 JOB_NOT_CANCELLABLE.',
      tag: r.tag,
      auth: 'apiKey',
      // Cancelling is idempotent by itself: a repeat answers the cancelled job.
      idempotent: false,
      params: IdParams,
      status: 200,
      response: r.detail,
      errors: ['JOB_NOT_FOUND', 'JOB_NOT_CANCELLABLE'],
      handler: async ({ params, auth }) => r.present(rt, await cancelJob(rt, auth.accountId, kind, params.id)),
    });
  });
}
