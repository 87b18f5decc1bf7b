import type { JobDeps } from '../deps.ts';
import { creditsForDuration } from '../../domain/credits.ts';
import { getBalanceSeconds } from '../../store/credits.ts';
import { findAccount } from '../../store/accounts.ts';
import { insufficientCredits, type UnmeasuredInput } from './acquire-input.ts';

/** Bytes per second of a 128 kbit/s file: the rate the hold for an unmeasured file assumes. */
const ESTIMATE_BYTES_PER_SECOND = 16_000;

/**
 * The credits a job from an unmeasured upload (PUT straight to S3) holds at creation. Its real
 * length is not known until the worker decodes it, before anything is separated or charged
 * (`src/worker/measure-input.ts`), which then settles the hold to exactly the decoded length: the
 * surplus goes back, a shortfall is taken from the balance, and a job the balance cannot cover fails
 * with INSUFFICIENT_CREDITS and holds nothing. The hold is an estimate from the size (128 kbit/s),
 * within the duration limits and never more than the balance, so it neither refuses a file the
 * balance covers nor blocks the rest of the balance for long. Refused here only when the balance
 * cannot pay for even the shortest acceptable file.
 */
export async function holdForUnmeasured(
  deps: Pick<JobDeps, 'config' | 'db'>,
  accountId: string,
  input: UnmeasuredInput,
): Promise<number> {
  const { minDurationSeconds, maxDurationSeconds } = deps.config.limits;
  const least = creditsForDuration(minDurationSeconds);
  const estimate = Math.ceil(input.fileSizeBytes / ESTIMATE_BYTES_PER_SECOND);
  const sized = Math.max(least, Math.min(estimate, creditsForDuration(maxDurationSeconds)));
  // METERING=off: nothing is held (insertHeldJob); the estimate only sizes the job until measured.
  if (!deps.config.metering) return sized;
  const balance = await getBalanceSeconds(deps.db, accountId);
  if (balance < least) throw insufficientCredits(deps, least, balance, await findAccount(deps.db, accountId));
  return Math.min(balance, sized);
}
