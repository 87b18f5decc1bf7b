import { JobAnalysis } from '../../contract/analysis.ts';
import { IdParams } from '../../contract/common.ts';
import { ApiError } from '../../domain/errors.ts';
import { presentJobAnalysis } from '../../jobs/outputs/job-analysis.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { findAccountJob } from '../../store/jobs.ts';

/** The kinds whose jobs are analysed (separations): a denoise job's id is not found here. */
const ANALYSED_KINDS = new Set(['stem', 'video', 'track']);

export function jobAnalysisRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'GET',
      url: '/v1/jobs/:id/analysis',
      summary: "A finished job's tempo, key, beats, downbeats and chords",
      description:
        'For a COMPLETED stem, video or track job (any of the three, by its id). Times in seconds; downbeats are a subset of beats; chords cover the whole song, "N" where no chord sounds. A job that finished before beats and chords were analysed answers its bpm and key with beats, downbeats, beatsPerBar, beatConfidence and chords null. 409 JOB_NOT_COMPLETED before the job completes (or when it failed); 410 OUTPUT_EXPIRED once retention removed its outputs.',
      tag: 'Stem jobs',
      auth: 'apiKey',
      rateBucket: 'poll',
      params: IdParams,
      status: 200,
      response: JobAnalysis,
      errors: ['JOB_NOT_FOUND', 'JOB_NOT_COMPLETED', 'OUTPUT_EXPIRED'],
      handler: async ({ params, auth }) => {
        const row = await findAccountJob(rt.db, auth.accountId, null, params.id);
        if (!row || !ANALYSED_KINDS.has(row.kind)) throw new ApiError('JOB_NOT_FOUND', `No job '${params.id}'.`);
        return presentJobAnalysis(rt.blobs, row);
      },
    }),
  ];
}
