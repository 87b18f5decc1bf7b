import { Redis } from 'ioredis';
import { assertHitArgs, DEFAULT_WINDOW_MS, resultFor, type RateLimiter, type RateLimitResult } from './rate-limiter.ts';

/**
 * One round trip, atomic: count the hit, start the window's expiry on its first hit, and report
 * the time left. The PTTL guard repairs a counter that somehow has no expiry (for example one
 * written by hand), which would otherwise refuse that key forever.
 */
const HIT_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;

export interface RedisRateLimiterOptions {
  /** Prepended to every key; lets several deployments or test runs share one Redis. */
  prefix?: string;
  /** Whether `close()` should also close the connection (true when this limiter created it). */
  ownsConnection?: boolean;
}

type WithHit = Redis & { stemforgeRateLimitHit(key: string, windowMs: number): Promise<[number, number]> };

/**
 * Fixed-window counters in Redis, shared by every API process. Redis's own clock drives expiry;
 * the reset time is computed from the remaining TTL, so API hosts' clock skew does not matter.
 * When Redis is unreachable `hit` rejects; the caller decides whether to fail open or closed.
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: WithHit;
  readonly #prefix: string;
  readonly #owns: boolean;

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    this.#prefix = options.prefix ?? 'stemforge:rl:';
    this.#owns = options.ownsConnection ?? false;
    // defineCommand sends EVALSHA and falls back to EVAL once after a script-cache flush.
    if (!('stemforgeRateLimitHit' in redis))
      redis.defineCommand('stemforgeRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
    this.#redis = redis as WithHit;
  }

  /** Connects to `url` with settings suited to a request path: fail fast instead of queueing. */
  static fromUrl(url: string, options: Omit<RedisRateLimiterOptions, 'ownsConnection'> = {}): RedisRateLimiter {
    const redis = new Redis(url, { maxRetriesPerRequest: 1, connectTimeout: 5_000, lazyConnect: false });
    // ioredis reconnects by itself; without a listener an unreachable server would crash the process.
    redis.on('error', () => {});
    return new RedisRateLimiter(redis, { ...options, ownsConnection: true });
  }

  get prefix(): string {
    return this.#prefix;
  }

  async hit(key: string, limit: number, windowMs = DEFAULT_WINDOW_MS): Promise<RateLimitResult> {
    assertHitArgs(key, limit, windowMs);
    const [count, ttl] = await this.#redis.stemforgeRateLimitHit(this.#prefix + key, windowMs);
    const now = Date.now();
    return resultFor(Number(count), limit, now + Number(ttl), now);
  }

  async close(): Promise<void> {
    if (this.#owns) await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
