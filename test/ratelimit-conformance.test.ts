import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryRateLimiter } from '../src/ratelimit/memory-rate-limiter.ts';
import type { RateLimiter } from '../src/ratelimit/rate-limiter.ts';
import { RedisRateLimiter } from '../src/ratelimit/redis-rate-limiter.ts';

/**
 * The rate-limit port's contract, run against the in-memory adapter and the Redis adapter (real
 * Redis on 127.0.0.1:6379, REDIS_URL to override; keys under a prefix unique to this run, removed
 * afterwards).
 */
const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const runPrefix = `stemforge-test:rl:${randomUUID()}:`;

interface Harness {
  limiter: RateLimiter;
  close(): Promise<void>;
}

const adapters: { name: string; setup: () => Promise<Harness> }[] = [
  { name: 'memory', setup: async () => ({ limiter: new MemoryRateLimiter(), close: async () => {} }) },
  {
    name: 'redis (127.0.0.1)',
    setup: async () => {
      const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
      return {
        limiter: new RedisRateLimiter(redis, { prefix: runPrefix }),
        close: async () => {
          await deleteRunKeys(redis);
          await redis.quit();
        },
      };
    },
  },
];

async function deleteRunKeys(redis: Redis): Promise<void> {
  const keys = await redis.keys(`${runPrefix}*`);
  if (keys.length) await redis.del(...keys);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.each(adapters)('rate limiter conformance: $name', ({ setup }) => {
  let h: Harness;
  const key = () => `key_${randomUUID()}`;
  beforeAll(async () => {
    h = await setup();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('allows the first hit and reports the window', async () => {
    const before = Date.now();
    const r = await h.limiter.hit(key(), 5, 60_000);
    expect(r).toMatchObject({ allowed: true, limit: 5, remaining: 4, retryAfterSeconds: 0 });
    expect(r.resetAtUnixSeconds).toBeGreaterThanOrEqual(Math.floor((before + 59_000) / 1000));
    expect(r.resetAtUnixSeconds).toBeLessThanOrEqual(Math.ceil((Date.now() + 60_000) / 1000));
  });

  it('allows exactly `limit` hits, then refuses with Retry-After within the window', async () => {
    const k = key();
    const results = [];
    for (let i = 0; i < 4; i++) results.push(await h.limiter.hit(k, 3, 60_000));
    expect(results.map((r) => r.allowed)).toEqual([true, true, true, false]);
    expect(results.map((r) => r.remaining)).toEqual([2, 1, 0, 0]);
    const refused = results[3]!;
    expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(59);
    expect(refused.retryAfterSeconds).toBeLessThanOrEqual(60);
    // The window is fixed at the first hit: later hits do not move the reset time.
    expect(new Set(results.map((r) => r.resetAtUnixSeconds)).size).toBeLessThanOrEqual(2);
    expect(Math.abs(refused.resetAtUnixSeconds - results[0]!.resetAtUnixSeconds)).toBeLessThanOrEqual(1);
  });

  it('keeps keys independent', async () => {
    const a = key();
    const b = key();
    await h.limiter.hit(a, 1, 60_000);
    expect((await h.limiter.hit(a, 1, 60_000)).allowed).toBe(false);
    expect((await h.limiter.hit(b, 1, 60_000)).allowed).toBe(true);
  });

  it('opens a fresh window once the old one has passed', async () => {
    const k = key();
    expect((await h.limiter.hit(k, 1, 300)).allowed).toBe(true);
    const refused = await h.limiter.hit(k, 1, 300);
    expect(refused.allowed).toBe(false);
    expect(refused.retryAfterSeconds).toBe(1);
    await sleep(350);
    expect(await h.limiter.hit(k, 1, 300)).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('counts concurrent hits atomically: exactly `limit` of 60 are allowed', async () => {
    const k = key();
    const results = await Promise.all(Array.from({ length: 60 }, () => h.limiter.hit(k, 25, 60_000)));
    expect(results.filter((r) => r.allowed).length).toBe(25);
    expect(results.filter((r) => r.remaining === 0).length).toBe(36);
  });

  it('counts a failure series, reports the time since its last failure, and forgets it', async () => {
    const k = key();
    expect(await h.limiter.failures(k)).toBeNull();
    expect(await h.limiter.recordFailure(k, 60_000)).toBe(1);
    expect(await h.limiter.recordFailure(k, 60_000)).toBe(2);
    await sleep(120);
    const series = await h.limiter.failures(k);
    expect(series?.count).toBe(2);
    expect(series?.msSinceLast).toBeGreaterThanOrEqual(100);
    expect(series?.msSinceLast).toBeLessThan(60_000);
    // Series and counters of the same key are apart.
    expect((await h.limiter.hit(k, 1, 60_000)).allowed).toBe(true);
    expect((await h.limiter.failures(k))?.count).toBe(2);
    await h.limiter.clearFailures(k);
    expect(await h.limiter.failures(k)).toBeNull();
    // A series is forgotten `forgetMs` after its last failure.
    const brief = key();
    await h.limiter.recordFailure(brief, 200);
    await sleep(300);
    expect(await h.limiter.failures(brief)).toBeNull();
    expect(await h.limiter.recordFailure(brief, 200)).toBe(1);
  });

  it('counts concurrent failures atomically', async () => {
    const k = key();
    const counts = await Promise.all(Array.from({ length: 30 }, () => h.limiter.recordFailure(k, 60_000)));
    expect(new Set(counts).size).toBe(30);
    expect((await h.limiter.failures(k))?.count).toBe(30);
  });

  it('rejects nonsense arguments', async () => {
    await expect(h.limiter.recordFailure('', 1000)).rejects.toThrow();
    await expect(h.limiter.hit('', 1)).rejects.toThrow();
    await expect(h.limiter.hit(key(), 0)).rejects.toThrow();
    await expect(h.limiter.hit(key(), 1.5)).rejects.toThrow();
    await expect(h.limiter.hit(key(), 1, 0)).rejects.toThrow();
  });
});

describe('memory rate limiter housekeeping', () => {
  it('sweeps expired windows so memory stays bounded', async () => {
    let now = 1_000_000;
    const limiter = new MemoryRateLimiter({ now: () => now, sweepIntervalMs: 1000 });
    for (let i = 0; i < 500; i++) await limiter.hit(`k${i}`, 10, 60_000);
    expect(limiter.size).toBe(500);
    now += 61_000;
    await limiter.hit('fresh', 10, 60_000);
    expect(limiter.size).toBe(1);
  });

  it('caps live keys under a flood of distinct keys within one window', async () => {
    const limiter = new MemoryRateLimiter({ maxKeys: 1000 });
    for (let i = 0; i < 5000; i++) await limiter.hit(`flood${i}`, 10, 60_000);
    expect(limiter.size).toBeLessThanOrEqual(1000);
  });
});

describe('redis rate limiter storage', () => {
  let redis: Redis;
  beforeAll(() => {
    redis = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
  });
  afterAll(async () => {
    await deleteRunKeys(redis);
    await redis.quit();
  });

  it('keeps one prefixed counter per key that expires with the window', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix: runPrefix });
    await limiter.hit('apikey_1', 10, 60_000);
    await limiter.hit('apikey_1', 10, 60_000);
    expect(await redis.get(`${runPrefix}apikey_1`)).toBe('2');
    const ttl = await redis.pttl(`${runPrefix}apikey_1`);
    expect(ttl).toBeGreaterThan(55_000);
    expect(ttl).toBeLessThanOrEqual(60_000);
  });

  it('repairs a counter that lost its expiry instead of refusing forever', async () => {
    const limiter = new RedisRateLimiter(redis, { prefix: runPrefix });
    await redis.set(`${runPrefix}stuck`, '100');
    const r = await limiter.hit('stuck', 10, 60_000);
    expect(r.allowed).toBe(false);
    expect(await redis.pttl(`${runPrefix}stuck`)).toBeGreaterThan(0);
  });

  it('shares counters between two limiters (two API processes)', async () => {
    const other = new Redis(REDIS_URL, { maxRetriesPerRequest: 1 });
    try {
      const a = new RedisRateLimiter(redis, { prefix: runPrefix });
      const b = new RedisRateLimiter(other, { prefix: runPrefix });
      expect((await a.hit('shared', 2, 60_000)).allowed).toBe(true);
      expect((await b.hit('shared', 2, 60_000)).allowed).toBe(true);
      expect((await a.hit('shared', 2, 60_000)).allowed).toBe(false);
    } finally {
      await other.quit();
    }
  });

  it('rejects, rather than hangs, when Redis is unreachable', async () => {
    const limiter = RedisRateLimiter.fromUrl('redis://127.0.0.1:1');
    try {
      await expect(limiter.hit('k', 1)).rejects.toThrow();
    } finally {
      await limiter.close();
    }
  }, 15_000);
});
