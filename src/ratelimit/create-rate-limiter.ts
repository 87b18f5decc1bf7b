import type { Config } from '../config.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

/** Scale-out: Redis counters shared by every API process. Embedded: counters in memory. */
export function createRateLimiter(config: Pick<Config, 'deployment'> & { redisPrefix?: string }): RateLimiter {
  return config.deployment.mode === 'scale-out'
    ? RedisRateLimiter.fromUrl(config.deployment.redisUrl, { prefix: `${config.redisPrefix ?? 'stemforge'}:rl:` })
    : new MemoryRateLimiter();
}
