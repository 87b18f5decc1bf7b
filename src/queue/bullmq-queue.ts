import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { JobKind } from '../store/schema.ts';
import type { Stage } from '../domain/job-kinds.ts';
import { QUEUE_LOCK_MS, QUEUE_LOCK_RENEW_MS, QUEUE_STALLED_CHECK_MS } from '../domain/job-lease.ts';
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
 *
 * One message per job and stage: the job id is the BullMQ job id, so announcing a job that already
 * has a message (waiting, delayed or running) adds nothing, however often the workers' re-offer of
 * runnable jobs runs. A finished or failed message is removed at once, so a later announcement of
 * the same job (its retry, or the re-offer after a dead worker's message failed as stalled) is added
 * again. A retry announced by the job's own running handler would be dropped against its own
 * message, so it is added once that message has finished.
 */
export class BullQueue implements JobQueue {
  private readonly connection: Redis;
  private readonly queues = new Map<Stage, Queue>();
  private readonly workers: Worker[] = [];
  private readonly prefix: string;
  private readonly report: (err: unknown, what: string) => void;
  /** `${stage} ${jobId}` of the messages this process is running now. */
  private readonly running = new Set<string>();
  /** Announcements made while that job's own message was running, added once it has finished. */
  private readonly deferred = new Map<string, { job: { id: string; kind: JobKind }; delayMs: number }>();

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
    const key = `${stage} ${job.id}`;
    if (this.running.has(key)) {
      this.deferred.set(key, { job: { id: job.id, kind: job.kind }, delayMs });
      return;
    }
    await this.queue(stage).add(
      job.kind,
      { jobId: job.id },
      { jobId: job.id, delay: delayMs, removeOnComplete: true, removeOnFail: true, attempts: 1 },
    );
  }

  /** A message of this process finished: an announcement its handler made is added now. */
  private finished(stage: Stage, jobId: string | undefined): void {
    if (jobId === undefined) return;
    const key = `${stage} ${jobId}`;
    this.running.delete(key);
    const next = this.deferred.get(key);
    if (!next) return;
    this.deferred.delete(key);
    this.enqueue(next.job, stage, next.delayMs).catch((err) =>
      this.report(err, `could not announce job ${jobId} again at stage ${stage} (the re-offer will)`),
    );
  }

  consume(stage: Stage, concurrency: number, run: (jobId: string) => Promise<void>): void {
    const worker = new Worker(
      `jobs-${stage}`,
      async (message) => {
        const jobId = (message.data as { jobId: string }).jobId;
        this.running.add(`${stage} ${jobId}`);
        await run(jobId);
      },
      {
        connection: this.connection.duplicate(),
        prefix: this.prefix,
        concurrency,
        // Outlasting the job's lease, and checked often: a dead worker's job is taken within the
        // lease plus 10 s (src/domain/job-lease.ts).
        lockDuration: QUEUE_LOCK_MS,
        lockRenewTime: QUEUE_LOCK_RENEW_MS,
        stalledInterval: QUEUE_STALLED_CHECK_MS,
      },
    );
    worker.on('error', (err) => this.report(err, `BullMQ worker error on stage ${stage} (it retries)`));
    // Emitted once the message is removed (removeOnComplete / removeOnFail), so a re-add is not dropped.
    worker.on('completed', (message) => this.finished(stage, (message.data as { jobId?: string }).jobId));
    // The runner handles a job's own failures; what reaches BullMQ is the runner failing to record one.
    worker.on('failed', (message, err) => {
      const jobId = (message?.data as { jobId?: string } | undefined)?.jobId;
      this.report(err, `job ${jobId ?? '?'} message failed at stage ${stage}`);
      this.finished(stage, jobId);
    });
    this.workers.push(worker);
  }

  async close(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.close()));
    await Promise.all([...this.queues.values()].map((q) => q.close()));
    this.connection.disconnect();
  }
}
