import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { JobKind } from '../store/schema.ts';
import type { Stage } from '../domain/job-kinds.ts';
import type { JobQueue } from './job-queue.ts';
import { swallowedErrorLog } from './log-swallowed.ts';

export interface BullQueueOptions {
  /** Namespace of the queues' Redis keys. */
  prefix?: string;
  /** Where the errors this adapter survives (Redis away, a handler that threw) are reported. */
  log?: Logger;
}

/**
 * Scale-out queue adapter: BullMQ on Redis, one queue per stage, so API processes enqueue and
 * worker processes (GPU workers where present) consume. Messages carry only the job id: the worker
 * claims the database row before running, so a duplicate or re-delivered message (BullMQ's stalled
 * job recovery after a worker dies) never runs a job twice at once, and the database stays the one
 * source of truth.
 */
export class BullQueue implements JobQueue {
  private readonly connection: Redis;
  private readonly queues = new Map<Stage, Queue>();
  private readonly workers: Worker[] = [];
  private readonly prefix: string;
  private readonly report: (err: unknown, what: string) => void;

  constructor(redisUrl: string, options: BullQueueOptions = {}) {
    this.prefix = options.prefix ?? 'stemforge';
    this.report = swallowedErrorLog(options.log ?? pino({ level: 'silent' }), 'bullmq-queue');
    this.connection = new Redis(redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    // ioredis reconnects by itself; without a listener an unreachable server would crash the process.
    this.connection.on('error', (err) => this.report(err, 'Redis connection error (the queue reconnects)'));
  }

  private queue(stage: Stage): Queue {
    let q = this.queues.get(stage);
    if (!q) {
      q = new Queue(`jobs-${stage}`, { connection: this.connection, prefix: this.prefix });
      this.queues.set(stage, q);
    }
    return q;
  }

  async enqueue(job: { id: string; kind: JobKind }, stage: Stage, delayMs = 0): Promise<void> {
    await this.queue(stage).add(
      job.kind,
      { jobId: job.id },
      { delay: delayMs, removeOnComplete: true, removeOnFail: 1000, attempts: 1 },
    );
  }

  consume(stage: Stage, concurrency: number, run: (jobId: string) => Promise<void>): void {
    const worker = new Worker(
      `jobs-${stage}`,
      async (message) => {
        await run((message.data as { jobId: string }).jobId);
      },
      {
        connection: this.connection.duplicate(),
        prefix: this.prefix,
        concurrency,
        lockDuration: 60_000,
      },
    );
    worker.on('error', (err) => this.report(err, `BullMQ worker error on stage ${stage} (it retries)`));
    // The runner handles a job's own failures; what reaches BullMQ is the runner failing to record one.
    worker.on('failed', (message, err) =>
      this.report(
        err,
        `job ${(message?.data as { jobId?: string } | undefined)?.jobId ?? '?'} message failed at stage ${stage}`,
      ),
    );
    this.workers.push(worker);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.connection.disconnect();
  }
}
