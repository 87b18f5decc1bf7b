import type { WorkerDeps } from './deps.ts';
import type { JobRow } from '../store/jobs.ts';
import { getBalanceSeconds, heldForJob, holdCredits, releaseHold } from '../store/credits.ts';
import { recordMeasuredInput } from '../store/measured-input.ts';
import { creditsForDuration } from '../domain/credits.ts';
import { findAccount } from '../store/accounts.ts';
import { grantHint } from '../jobs/create/acquire-input.ts';
import { PermanentJobError, ShutdownError } from './job-errors.ts';

/**
 * The runner's half of measuring an input the API never saw (an upload PUT straight to S3): in one
 * transaction, the estimate held at creation is released and exactly the measured length is held
 * instead, and the job's row records that length and cost (what the detail shows and the completion
 * charges) and the size of the file measured (a client may have PUT again after the job's creation). When the balance cannot cover the measured length, nothing changes and the job fails
 * with INSUFFICIENT_CREDITS (its estimate is then released with the failure), as `POST /jobs` would
 * have answered 402 had the length been known there. Returns the credits now required.
 */
export async function settleMeasuredInput(
  deps: Pick<WorkerDeps, 'db' | 'config' | 'metrics'>,
  job: Pick<JobRow, 'id' | 'account_id'>,
  /** The job's input payload as `readJob` parsed it; stored again with the measured bill and size. */
  parsedInput: { billedSeconds: number; fileSizeBytes: number },
  owner: string,
  measured: { durationSeconds: number; fileSizeBytes: number },
): Promise<number> {
  const { durationSeconds, fileSizeBytes } = measured;
  const credits = creditsForDuration(durationSeconds);
  const input = { ...parsedInput, billedSeconds: credits, fileSizeBytes };
  let released: { estimate: number; held: number } | null;
  try {
    released = await deps.db.transaction().execute(async (tx) => {
      const mine = await recordMeasuredInput(tx, job.id, owner, {
        durationSeconds,
        credits,
        inputJson: JSON.stringify(input),
      });
      if (!mine) return null;
      // A job created while METERING=off holds nothing and stays free; with metering off now, its
      // estimate is released and nothing is held (the completion charges only what is held).
      const hold = (await heldForJob(tx, job.id)) > 0 && deps.config.metering;
      const estimate = await releaseHold(tx, job.account_id, job.id, 'estimate settled to the measured length');
      if (hold && !(await holdCredits(tx, job.account_id, credits, job.id))) {
        // Roll the release and the record back; the failure releases the estimate with the job.
        throw new Uncovered(await getBalanceSeconds(tx, job.account_id));
      }
      return { estimate, held: hold ? credits : 0 };
    });
  } catch (err) {
    if (!(err instanceof Uncovered)) throw err;
    const hint = grantHint(deps.config, await findAccount(deps.db, job.account_id), credits - err.balance);
    throw new PermanentJobError(
      `This job needs ${credits} credits (seconds) for the ${durationSeconds.toFixed(1)} s its file decodes to; the balance is ${err.balance}. Nothing was processed and the held credits were released.${hint}`,
      'INSUFFICIENT_CREDITS',
    );
  }
  if (released === null) throw new ShutdownError('lease lost');
  deps.metrics.creditsReleased.inc({ reason: 'estimate' }, released.estimate);
  deps.metrics.creditsHeld.inc(released.held);
  return credits;
}

class Uncovered extends Error {
  constructor(readonly balance: number) {
    super('the balance does not cover the measured length');
  }
}
