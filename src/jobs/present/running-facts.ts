import type { JobDeps } from '../deps.ts';
import { kindsInStage } from '../../domain/job-kinds.ts';
import { heldForJob } from '../../store/credits.ts';
import { queueAhead } from '../../store/job-edits.ts';
import type { JobRow } from '../../store/jobs.ts';
import { processingFactor } from '../estimate.ts';
import { presenterOf } from './job-presenters.ts';
import { readJob } from '../read-job.ts';

export interface RunningFacts {
  /** 1 when it is next in its stage's queue; null unless PENDING. */
  queuePosition: number | null;
  /** Estimated seconds until it is done; null once finished. */
  secondsLeft: number | null;
  /** Credits held for it now (released or charged when it ends). */
  creditsHeld: number;
}

/** Below this much progress the elapsed time says too little about the rest. */
const MIN_PROGRESS_FOR_PACE = 5;

/**
 * What a person waiting for a job wants to know: where it is in the queue, about how long is left,
 * and what it holds of the balance. A PENDING job's time is the audio queued and running ahead of
 * it shared by the workers, plus its own, at this deployment's processing speed (`estimate.ts`);
 * a PROCESSING one's is its own pace so far, once it has made some progress.
 */
export async function runningFacts(deps: Pick<JobDeps, 'db' | 'config'>, row: JobRow): Promise<RunningFacts> {
  if (row.status !== 'PENDING' && row.status !== 'PROCESSING') {
    return { queuePosition: null, secondsLeft: null, creditsHeld: 0 };
  }
  const job = readJob(row);
  const [creditsHeld, factor] = await Promise.all([
    heldForJob(deps.db, row.id),
    processingFactor(deps.db, row.kind, presenterOf(job).paceTier(job)),
  ]);
  const own = row.duration_seconds ?? job.input.billedSeconds;
  if (row.status === 'PROCESSING') {
    const elapsed = row.started_at ? (Date.now() - Date.parse(row.started_at)) / 1000 : 0;
    const left =
      row.progress >= MIN_PROGRESS_FOR_PACE && elapsed > 0
        ? (elapsed * (100 - row.progress)) / row.progress
        : factor * own * (1 - row.progress / 100);
    return { queuePosition: null, secondsLeft: Math.max(1, Math.ceil(left)), creditsHeld };
  }
  const stage = row.source_key === null ? 'download' : 'inference';
  const ahead = await queueAhead(deps.db, row, kindsInStage(stage));
  const concurrency = Math.max(1, deps.config.workers.concurrency);
  const seconds = factor * ((ahead.audioSeconds + ahead.runningAudioSeconds) / concurrency + own);
  return { queuePosition: ahead.jobs + 1, secondsLeft: Math.max(1, Math.ceil(seconds)), creditsHeld };
}
