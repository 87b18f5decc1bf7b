import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import { BullQueue } from './bullmq-queue.ts';
import { DbQueue } from './db-queue.ts';
import type { JobQueue } from './job-queue.ts';

/** The queue adapter for this deployment: BullMQ when REDIS_URL is set, else the embedded database queue. */
export function createQueue(config: Config, db: Db): JobQueue {
  return config.redisUrl ? new BullQueue(config.redisUrl, config.redisPrefix) : new DbQueue(db);
}
