import type { Config } from '../config.ts';
import { MemoryRateLimiter } from './memory-rate-limiter.ts';
import type { RateLimiter } from './rate-limiter.ts';
import { RedisRateLimiter } from './redis-rate-limiter.ts';

/** Redis counters when `redisUrl` is set (several API processes share them), else in memory. */
export function createRateLimiter(config: Pick<Config, 'redisUrl'> & { redisPrefix?: string }): RateLimiter {
  return config.redisUrl
    ? RedisRateLimiter.fromUrl(config.redisUrl, { prefix: `${config.redisPrefix ?? 'stemforge'}:rl:` })
    : new MemoryRateLimiter();
}
