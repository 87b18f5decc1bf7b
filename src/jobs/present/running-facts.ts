import type { JobDeps } from '../deps.ts';
import { kindsInStage } from '../../domain/job-kinds.ts';
import { heldForJob } from '../../store/credits.ts';
import { queueAhead } from '../../store/job-edits.ts';
import type { JobRow } from '../../store/jobs.ts';
import { paces, rowSeconds, runningSecondsLeft, schedule } from '../estimate.ts';

export interface RunningFacts {
  /** 1 when it is next in its stage's queue; null unless PENDING. */
  queuePosition: number | null;
  /** Estimated seconds until it is done; null once finished. */
  secondsLeft: number | null;
  /** Credits held for it now (released or charged when it ends). */
  creditsHeld: number;
}

/**
 * What a person waiting for a job wants to know: where it is in the queue, about how long is left,
 * and what it holds of the balance. Times come from this deployment's measured pace per tier and
 * length (`estimate.ts`); a PENDING job's is its place in the schedule of the jobs running and
 * waiting ahead of it in its stage (every account's: the workers are shared), so a job behind
 * another never says less time left than it.
 */
export async function runningFacts(deps: Pick<JobDeps, 'db' | 'config'>, row: JobRow): Promise<RunningFacts> {
  if (row.status !== 'PENDING' && row.status !== 'PROCESSING') {
    return { queuePosition: null, secondsLeft: null, creditsHeld: 0 };
  }
  const [creditsHeld, all] = await Promise.all([heldForJob(deps.db, row.id), paces(deps.db)]);
  if (row.status === 'PROCESSING') {
    return { queuePosition: null, secondsLeft: Math.ceil(runningSecondsLeft(all, row)), creditsHeld };
  }
  const stage = row.source_key === null ? 'download' : 'inference';
  const queue = await queueAhead(deps.db, { kinds: kindsInStage(stage), stage, before: row });
  const workers = stage === 'download' ? deps.config.workers.downloadConcurrency : deps.config.workers.concurrency;
  const times = schedule(
    queue.running.map((r) => runningSecondsLeft(all, r)),
    [...queue.waiting, row].map((r) => rowSeconds(all, r)),
    workers,
  );
  return {
    queuePosition: queue.waiting.length + 1,
    secondsLeft: Math.max(1, Math.ceil(times.at(-1) ?? 1)),
    creditsHeld,
  };
}
