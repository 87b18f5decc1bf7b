import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import { BullQueue } from './bullmq-queue.ts';
import { DbQueue } from './db-queue.ts';
import type { JobQueue } from './job-queue.ts';

/** The queue adapter for this deployment: BullMQ on Redis in scale-out, else the embedded database queue. */
export function createQueue(
  config: Pick<Config, 'deployment' | 'redisPrefix' | 'dependencyTimeoutMs'>,
  db: Db,
  log: Logger,
  onUnavailable?: (err: unknown) => void,
): JobQueue {
  return config.deployment.mode === 'scale-out'
    ? new BullQueue(config.deployment.redisUrl, {
        prefix: config.redisPrefix,
        log,
        timeoutMs: config.dependencyTimeoutMs,
        onUnavailable,
      })
    : new DbQueue(db, { log });
}
