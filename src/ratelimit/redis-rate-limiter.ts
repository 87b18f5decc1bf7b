import { Redis } from 'ioredis';
import { redisFailure, unavailableOr, withDeadline } from '../dependencies/unavailable.ts';
import { pingRedis } from '../dependencies/redis-probe.ts';
import {
  assertHitArgs,
  DEFAULT_WINDOW_MS,
  resultFor,
  type RateLimiter,
  type RateLimitResult,
  assertKey,
  type FailureSeries,
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
  /** The longest a hit waits on Redis (DEPENDENCY_TIMEOUT_SECONDS). */
  timeoutMs?: number;
  /** Told of each Redis connection failure (`src/dependencies/monitor.ts`). */
  onUnavailable?: (err: unknown) => void;
}

type WithHit = Redis & {
  stemforgeRateLimitHit(key: string, windowMs: number): Promise<[number, number]>;
  stemforgeRecordFailure(key: string, forgetMs: number): Promise<number>;
  stemforgeFailureSeries(key: string): Promise<[number, number] | null>;
};

/**
 * Fixed-window counters in Redis, shared by every API process. Redis's own clock drives expiry;
 * the reset time is computed from the remaining TTL, so API hosts' clock skew does not matter.
 * When Redis is unreachable `hit` rejects with DependencyUnavailableError; the caller decides whether
 * to fail open (the API's per-key budget) or closed (sign-in attempts: 503).
 */
export class RedisRateLimiter implements RateLimiter {
  readonly #redis: WithHit;
  readonly #prefix: string;
  readonly #owns: boolean;
  readonly #timeoutMs: number;
  readonly #unavailable: (err: unknown) => unknown;

  constructor(redis: Redis, options: RedisRateLimiterOptions = {}) {
    this.#prefix = options.prefix ?? 'stemforge:rl:';
    this.#owns = options.ownsConnection ?? false;
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#unavailable = unavailableOr('redis', redisFailure, options.onUnavailable ?? (() => {}));
    // defineCommand sends EVALSHA and falls back to EVAL once after a script-cache flush.
    if (!('stemforgeRateLimitHit' in redis)) {
      redis.defineCommand('stemforgeRateLimitHit', { numberOfKeys: 1, lua: HIT_SCRIPT });
      redis.defineCommand('stemforgeRecordFailure', { numberOfKeys: 1, lua: FAILURE_SCRIPT });
      redis.defineCommand('stemforgeFailureSeries', { numberOfKeys: 1, lua: SERIES_SCRIPT });
    }
    this.#redis = redis as WithHit;
  }

  /**
   * Connects to `url` with settings suited to a request path: while Redis is away a hit fails at
   * once (no offline queue, no retry), so a request that fails open is not slowed by the outage.
   */
  static fromUrl(url: string, options: Omit<RedisRateLimiterOptions, 'ownsConnection'> = {}): RedisRateLimiter {
    const redis = new Redis(url, {
      maxRetriesPerRequest: 0,
      enableOfflineQueue: false,
      connectTimeout: options.timeoutMs ?? 5_000,
      lazyConnect: false,
    });
    // ioredis reconnects by itself; without a listener an unreachable server would crash the process.
    redis.on('error', options.onUnavailable ?? (() => {}));
    return new RedisRateLimiter(redis, { ...options, ownsConnection: true });
  }

  /** Redis answers a PING within the timeout (the start-up check: the first requests find it connected). */
  async probe(): Promise<void> {
    await withDeadline(pingRedis(this.#redis), this.#timeoutMs, 'redis').catch((err: unknown) => {
      throw this.#unavailable(err);
    });
  }

  get prefix(): string {
    return this.#prefix;
  }

  async hit(key: string, limit: number, windowMs = DEFAULT_WINDOW_MS): Promise<RateLimitResult> {
    assertHitArgs(key, limit, windowMs);
    const hit = withDeadline(this.#redis.stemforgeRateLimitHit(this.#prefix + key, windowMs), this.#timeoutMs, 'redis');
    const [count, ttl] = await hit.catch((err: unknown) => {
      throw this.#unavailable(err);
    });
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
