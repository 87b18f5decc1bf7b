import { ApiError } from '../domain/errors.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';

/**
 * Sign-in attempts allowed per window: per account (the email tried, known or not, so the answer
 * does not tell which emails exist) and per client address (one address trying many emails).
 * Counted through the rate-limit port, so scale-out instances share the counters in Redis.
 */
export const SIGN_IN_WINDOW_MS = 15 * 60_000;
export const SIGN_IN_PER_ACCOUNT = 10;
export const SIGN_IN_PER_ADDRESS = 30;

export async function throttleSignIn(limiter: RateLimiter, email: string, address: string): Promise<void> {
  const checks = await Promise.all([
    limiter.hit(`signin:acct:${email.trim().toLowerCase()}`, SIGN_IN_PER_ACCOUNT, SIGN_IN_WINDOW_MS),
    limiter.hit(`signin:addr:${address}`, SIGN_IN_PER_ADDRESS, SIGN_IN_WINDOW_MS),
  ]);
  const refused = checks.filter((c) => !c.allowed);
  if (refused.length === 0) return;
  const retryAfter = Math.max(...refused.map((c) => c.retryAfterSeconds));
  throw new ApiError(
    'RATE_LIMIT_EXCEEDED',
    `Too many sign-in attempts; try again in ${Math.ceil(retryAfter / 60)} min.`,
    {},
    { 'Retry-After': String(retryAfter) },
  );
}
