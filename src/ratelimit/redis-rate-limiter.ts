import { Redis } from 'ioredis';
import {
  assertHitArgs,
  assertKey,
  DEFAULT_WINDOW_MS,
  type FailureSeries,
  resultFor,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.ts';

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

/**
 * A failure series is a hash {n, last}: one more failure, its time by Redis's clock (so the API
 * hosts' clocks do not matter), and the series forgotten ARGV[1] ms after it.
 */
const FAILURE_SCRIPT = `
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local n = redis.call('HINCRBY', KEYS[1], 'n', 1)
redis.call('HSET', KEYS[1], 'last', now)
redis.call('PEXPIRE', KEYS[1], ARGV[1])
return n
`;

/** The series' failures and the milliseconds since its last one, by Redis's clock; nil when none. */
const SERIES_SCRIPT = `
local v = redis.call('HMGET', KEYS[1], 'n', 'last')
if not v[1] then return nil end
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
return {tonumber(v[1]), now - tonumber(v[2] or now)}
`;

export interface RedisRateLimiterOptions {
  /** Prepended to every key; lets several deployments or test runs share one Redis. */
  prefix?: string;
  /** Whether `close()` should also close the connection (true when this limiter created it). */
  ownsConnection?: boolean;
}

type WithHit = Redis & {
  stemforgeRateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  stemforgeRecordFailure(key: string, forgetMs: number): Promise<number>;
  stemforgeFailureSeries(key: string): Promise<[number, number] | null>;
};

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
    if (!('stemforgeRateLimitHit' in redis)) {
      redis.defineCommand('stemforgeRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      redis.defineCommand('stemforgeRecordFailure', { numberOfKeys: 1, lua: FAILURE_SCRIPT });
      redis.defineCommand('stemforgeFailureSeries', { numberOfKeys: 1, lua: SERIES_SCRIPT });
    }
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

  async recordFailure(key: string, forgetMs: number): Promise<number> {
    assertKey(key);
    return Number(await this.#redis.stemforgeRecordFailure(this.#failureKey(key), forgetMs));
  }

  async failures(key: string): Promise<FailureSeries | null> {
    assertKey(key);
    const series = await this.#redis.stemforgeFailureSeries(this.#failureKey(key));
    return series ? { count: Number(series[0]), msSinceLast: Math.max(0, Number(series[1])) } : null;
  }

  async clearFailures(key: string): Promise<void> {
    assertKey(key);
    await this.#redis.del(this.#failureKey(key));
  }

  /** Failure series live beside the counters, apart from them. */
  #failureKey(key: string): string {
    return `${this.#prefix}fail:${key}`;
  }

  async close(): Promise<void> {
    if (this.#owns) await this.#redis.quit().catch(() => this.#redis.disconnect());
  }
}
