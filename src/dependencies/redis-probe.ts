import { once } from 'node:events';
import type { Redis } from 'ioredis';

/**
 * A PING on a connection without an offline queue. A connection attempt under way (the first one
 * at start, or a reconnect) is waited for, so a probe right after start does not fail for a socket
 * that is still opening; between attempts (Redis known away) the PING fails at once. The caller
 * bounds the wait (`withDeadline`).
 */
export async function pingRedis(redis: Redis): Promise<void> {
  if (redis.status === 'connecting' || redis.status === 'connect' || redis.status === 'wait') {
    if (redis.status === 'wait') void redis.connect().catch(() => undefined);
    await Promise.race([once(redis, 'ready'), once(redis, 'reconnecting')]);
  }
  await redis.ping();
}
