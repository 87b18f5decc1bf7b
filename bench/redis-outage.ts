/**
 * What a Redis outage costs the API requests that do not need Redis. Each authenticated request
 * counts itself in the rate limiter, on Redis in scale-out, and fails open when Redis is away. How
 * long that failure takes is the delay every such request pays. Two sides, alternating, medians:
 * - `before`: the limiter's connection as it was before issue 40 (ioredis's offline queue on, one
 *   retry per command): a hit waits for a reconnect attempt before it fails;
 * - `now`: `RedisRateLimiter.fromUrl` (no offline queue, no retry): a hit fails at once.
 * Both with Redis running (reference) and stopped (the outage). A Redis of the bench's own, stopped
 * with SIGKILL; the shared one is never touched.
 *
 *   node bin/run-ts.mjs bench/redis-outage.ts [--rounds 9]
 */
import { cpus } from 'node:os';
import { Redis } from 'ioredis';
import { RedisRateLimiter } from '../src/ratelimit/redis-rate-limiter.ts';
import { startTestRedis } from '../support/redis-server.ts';
import { median } from '../support/median.ts';

const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || 9;
const redis = await startTestRedis();

const beforeConnection = new Redis(redis.url, { maxRetriesPerRequest: 1, connectTimeout: 5_000 });
beforeConnection.on('error', () => undefined);
const sides = {
  // No deadline of its own on this side, as before (the limiter's now cuts a hit at 5 s).
  before: new RedisRateLimiter(beforeConnection, { prefix: 'bench:before:', timeoutMs: 120_000 }),
  now: RedisRateLimiter.fromUrl(redis.url, { prefix: 'bench:now:' }),
};
await sides.now.probe();

/** One hit's time in ms, whether it is allowed or fails (failing open is the request going on). */
async function hitMs(limiter: RedisRateLimiter): Promise<number> {
  const started = performance.now();
  await limiter.hit('k', 1_000_000).catch(() => undefined);
  return performance.now() - started;
}

async function measure(): Promise<Record<keyof typeof sides, number[]>> {
  const times = { before: [] as number[], now: [] as number[] };
  for (let i = 0; i < rounds; i++) {
    // Alternating which side goes first, so neither always follows the other's reconnect attempt.
    const order = i % 2 === 0 ? (['before', 'now'] as const) : (['now', 'before'] as const);
    for (const side of order) times[side].push(await hitMs(sides[side]));
  }
  return times;
}

const up = await measure();
await redis.stop();
await new Promise((r) => setTimeout(r, 1_000)); // both connections have seen it go
const down = await measure();

const fmt = (ms: number) => `${ms.toFixed(2)} ms`;
console.log(`CPU: ${cpus()[0]?.model ?? 'unknown'} x${cpus().length}; ${rounds} hits per side and state, alternating`);
console.log('rate-limit hit, median     before (offline queue)   now (fails at once)   before / now');
for (const [state, t] of [
  ['Redis running', up],
  ['Redis stopped', down],
] as const) {
  const [b, n] = [median(t.before), median(t.now)];
  console.log(`${state.padEnd(26)} ${fmt(b).padStart(22)} ${fmt(n).padStart(21)} ${(b / n).toFixed(1).padStart(14)}`);
}
console.log(`Redis stopped, slowest hit: before ${fmt(Math.max(...down.before))}, now ${fmt(Math.max(...down.now))}`);
beforeConnection.disconnect();
await sides.now.close();
process.exit(0);
