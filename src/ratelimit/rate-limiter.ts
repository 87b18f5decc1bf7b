/**
 * The rate-limit counter port. Policy: a fixed window per key that opens at the key's first hit and
 * lasts `windowMs`; every hit in it counts, and hits past `limit` are refused until the window ends.
 * A fixed window is one counter and one expiry per key (cheap in memory and in Redis), and its reset
 * time is exact, which is what `X-RateLimit-Reset` and `Retry-After` report. Its known weakness, up
 * to 2x `limit` across a window boundary, is acceptable for an API-abuse guard.
 * Adapters: `memory-rate-limiter.ts` (embedded) and `redis-rate-limiter.ts` (scale-out, shared by
 * every API process); `test/ratelimit-conformance.test.ts` runs against both.
 */
export interface RateLimiter {
  /** Counts one request for `key` and says whether it is within `limit` per `windowMs`. */
  hit(key: string, limit: number, windowMs?: number): Promise<RateLimitResult>;
  /** Adapters on another service: resolves once it answers, else DependencyUnavailableError. */
  probe?(): Promise<void>;
  /**
   * Failure series, for backoffs whose delay grows with each failure (sign-in per account and
   * address): records one failure of `key` and returns how many the series now has. The series is
   * forgotten `forgetMs` after its last failure.
   */
  recordFailure(key: string, forgetMs: number): Promise<number>;
  /** The series of `key`: its failures and the milliseconds since the last one; null when none. */
  failures(key: string): Promise<FailureSeries | null>;
  /** Forgets the series of `key` (a success). */
  clearFailures(key: string): Promise<void>;
  close(): Promise<void>;
}

export interface FailureSeries {
  count: number;
  msSinceLast: number;
}

export interface RateLimitResult {
  allowed: boolean;
  limit: number;
  /** Requests still allowed in the current window (0 once refused). */
  remaining: number;
  /** When the window ends, Unix seconds (rounded up): the `X-RateLimit-Reset` header. */
  resetAtUnixSeconds: number;
  /** Seconds until a refused request may be retried (>= 1); 0 when allowed. The `Retry-After` header. */
  retryAfterSeconds: number;
}

export const DEFAULT_WINDOW_MS = 60_000;

export function assertKey(key: string): void {
  if (typeof key !== 'string' || key.length === 0 || key.length > 512)
    throw new TypeError('key must be 1 to 512 characters');
}

export function assertHitArgs(key: string, limit: number, windowMs: number): void {
  assertKey(key);
  if (!Number.isSafeInteger(limit) || limit < 1) throw new RangeError('limit must be a positive integer');
  if (!Number.isSafeInteger(windowMs) || windowMs < 1) throw new RangeError('windowMs must be a positive integer');
}

/** The result for the `count`-th hit of a window that ends at `resetAtMs`. */
export function resultFor(count: number, limit: number, resetAtMs: number, nowMs: number): RateLimitResult {
  const allowed = count <= limit;
  return {
    allowed,
    limit,
    remaining: Math.max(0, limit - count),
    resetAtUnixSeconds: Math.ceil(resetAtMs / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((resetAtMs - nowMs) / 1000)),
  };
}
