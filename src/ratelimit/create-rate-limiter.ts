import type { Config } from '../config.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

/** Scale-out: Redis counters shared by every API process. Embedded: counters in memory. */
export function createRateLimiter(
  config: Pick<Config, 'deployment'> & Partial<Pick<Config, 'redisPrefix' | 'dependencyTimeoutMs'>>,
  onUnavailable?: (err: unknown) => void,
): RateLimiter {
  return config.deployment.mode === 'scale-out'
    ? RedisRateLimiter.fromUrl(config.deployment.redisUrl, {
        prefix: `${config.redisPrefix ?? 'stemforge'}:rl:`,
        timeoutMs: config.dependencyTimeoutMs,
        onUnavailable,
      })
    : new MemoryRateLimiter();
}
