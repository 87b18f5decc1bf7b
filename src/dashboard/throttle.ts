import { createHash } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';

/**
 * Sign-in throttling (docs/dashboard.md, "Throttling"), through the rate-limit port so scale-out
 * instances share it in Redis:
 * - per (account, address): wrong passwords from one client address for one email (known or not,
 *   so the answer does not tell which emails exist) are free up to SIGN_IN_FREE_FAILURES; then each
 *   further attempt from that address waits a delay that doubles with every failure, from 1 s up to
 *   15 min. A right password ends the series. Someone else's failures never slow the owner down at
 *   another address, so no email (the admin's, printed at the first start, included) can be locked
 *   out by a stranger;
 * - per address: at most SIGN_IN_PER_ADDRESS attempts per 15 minutes, whatever the emails, so one
 *   address cannot spray guesses over many accounts.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_ADDRESS = 30;
export const SIGN_IN_FREE_FAILURES = 5;
const FIRST_DELAY_MS = 1_000;
export const SIGN_IN_MAX_DELAY_MS = 15 * 60_000;
/** A series is forgotten a day after its last failure. */
const FORGET_MS = 24 * 3600_000;

/** The wait after `failures` wrong passwords of one account from one address before the next attempt. */
export function signInDelayMs(failures: number): number {
  if (failures < SIGN_IN_FREE_FAILURES) return 0;
  return Math.min(SIGN_IN_MAX_DELAY_MS, FIRST_DELAY_MS * 2 ** (failures - SIGN_IN_FREE_FAILURES));
}

export interface SignInAttempt {
  /** A wrong password: one more failure in the series of this email at this address. */
  failed(): Promise<void>;
  /** The right password: the series ends. */
  succeeded(): Promise<void>;
}

/**
 * Admits one sign-in (or current-password) attempt, before any password is checked: 429
 * RATE_LIMIT_EXCEEDED with Retry-After when the address is over its count or the email's series at
 * this address is still in its delay, even for the right password.
 */
export async function admitSignIn(limiter: RateLimiter, email: string, address: string): Promise<SignInAttempt> {
  // Hashed: an email may be long (up to 254 characters, many of them astral) and the series key
  // must stay within the limiter's 512; and nothing of what was typed is kept in Redis.
  const series = `signin:${createHash('sha256').update(email.trim().toLowerCase()).digest('hex')}|${address}`;
  const [perAddress, failures] = await Promise.all([
    limiter.hit(`signin:addr:${address}`, SIGN_IN_PER_ADDRESS, SIGN_IN_WINDOW_MS),
    limiter.failures(series),
  ]);
  const wait = failures ? signInDelayMs(failures.count) - failures.msSinceLast : 0;
  const retryAfter = Math.max(perAddress.retryAfterSeconds, wait > 0 ? Math.ceil(wait / 1000) : 0);
  if (retryAfter > 0) {
    const when = retryAfter < 120 ? `${retryAfter} s` : `${Math.ceil(retryAfter / 60)} min`;
    throw new ApiError(
      'RATE_LIMIT_EXCEEDED',
      `Too many sign-in attempts from this address; try again in ${when}.`,
      {},
      { 'Retry-After': String(retryAfter) },
    );
  }
  return {
    failed: async () => {
      await limiter.recordFailure(series, FORGET_MS);
    },
    succeeded: () => limiter.clearFailures(series),
  };
}
