import { Queue, Worker } from 'bullmq';
import { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import type { JobKind } from '../store/schema.ts';
import { STAGES, type Stage } from '../domain/job-kinds.ts';
import { QUEUE_LOCK_MS, QUEUE_LOCK_RENEW_MS, QUEUE_STALLED_CHECK_MS } from '../domain/job-lease.ts';
import type { JobQueue } from './job-queue.ts';
import { swallowedErrorLog } from './log-swallowed.ts';
import { redisFailure, unavailableOr, withDeadline } from '../dependencies/unavailable.ts';
import { pingRedis } from '../dependencies/redis-probe.ts';

export interface BullQueueOptions {
  /** Namespace of the queues' Redis keys. */
  prefix?: string;
  /** Where the errors this adapter survives (Redis away, a handler that threw) are reported. */
  log?: Logger;
  /** DEPENDENCY_TIMEOUT_SECONDS: the longest an enqueue, a probe or closing waits on Redis. */
  timeoutMs?: number;
  /** Told of each Redis connection failure (`src/dependencies/monitor.ts`). */
  onUnavailable?: (err: unknown) => void;
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
  /** Enqueues and probes: no offline queue, so a command fails at once while Redis is away. */
  private readonly producer: Redis;
  private readonly queues = new Map<Stage, Queue>();
  private readonly workers: Array<{ worker: Worker; connection: Redis }> = [];
  /** Handlers running now: closing waits for them (they hand their job back) before anything else. */
  private readonly handling = new Set<Promise<void>>();
  /** Deferred announcements being added: closing waits for them (bounded) before closing the queues. */
  private readonly adding = new Set<Promise<void>>();
  private readonly prefix: string;
  private readonly timeoutMs: number;
  private readonly report: (err: unknown, what: string) => void;
  private readonly unavailable: (err: unknown) => unknown;
  #closing: Promise<void> | undefined;
  /** `${stage} ${jobId}` of the messages this process is running now. */
  private readonly running = new Set<string>();
  /** Announcements made while that job's own message was running, added once it has finished. */
  private readonly deferred = new Map<string, { job: { id: string; kind: JobKind }; delayMs: number }>();

  constructor(
    private readonly redisUrl: string,
    options: BullQueueOptions = {},
  ) {
    this.prefix = options.prefix ?? 'stemforge';
    this.timeoutMs = options.timeoutMs ?? 5_000;
    this.report = swallowedErrorLog(options.log ?? pino({ level: 'silent' }), 'bullmq-queue');
    // Without a dependency monitor (a queue on its own), connection failures are logged here.
    const onUnavailable =
      options.onUnavailable ?? ((err: unknown) => this.report(err, 'Redis connection error (the queue reconnects)'));
    this.unavailable = unavailableOr('redis', redisFailure, onUnavailable);
    this.producer = new Redis(redisUrl, {
      maxRetriesPerRequest: 1,
      enableOfflineQueue: false,
      connectTimeout: this.timeoutMs,
      lazyConnect: false,
    });
    // ioredis reconnects by itself; without a listener an unreachable server would crash the process.
    this.producer.on('error', onUnavailable);
    // Made now, while the start-up check has just seen Redis: a queue made while Redis is away would
    // wait for it before its first enqueue.
    for (const stage of STAGES) {
      const q = new Queue(`jobs-${stage}`, { connection: this.producer, prefix: this.prefix });
      // Without a listener BullMQ prints each connection error to stderr as a raw dump.
      q.on('error', (err) => this.#failed(err, `BullMQ queue error on stage ${stage}`));
      this.queues.set(stage, q);
    }
  }

  private queue(stage: Stage): Queue {
    const q = this.queues.get(stage);
    if (!q) throw new Error(`no queue for stage ${stage}`);
    return q;
  }

  /** A connection failure is the dependency monitor's to log; anything else is logged here. */
  #failed(err: unknown, what: string): void {
    if (this.unavailable(err) === err) this.report(err, what);
  }

  /** Redis answers a PING within the timeout: an enqueue can be made now (job creation asks first). */
  async probe(): Promise<void> {
    await this.#bounded(pingRedis(this.producer));
  }

  #bounded<T>(promise: Promise<T>): Promise<T> {
    return withDeadline(promise, this.timeoutMs, 'redis').catch((err: unknown) => {
      throw this.unavailable(err);
    });
  }

  async enqueue(job: { id: string; kind: JobKind }, stage: Stage, delayMs = 0): Promise<void> {
    const key = `${stage} ${job.id}`;
    if (this.running.has(key)) {
      this.deferred.set(key, { job: { id: job.id, kind: job.kind }, delayMs });
      return;
    }
    await this.#bounded(
      this.queue(stage).add(
        job.kind,
        { jobId: job.id },
        { jobId: job.id, delay: delayMs, removeOnComplete: true, removeOnFail: true, attempts: 1 },
      ),
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
    const adding = this.enqueue(next.job, stage, next.delayMs).catch((err) =>
      this.#failed(err, `could not announce job ${jobId} again at stage ${stage} (the re-offer will)`),
    );
    this.adding.add(adding);
    void adding.finally(() => this.adding.delete(adding));
  }

  consume(stage: Stage, concurrency: number, run: (jobId: string) => Promise<void>): void {
    const connection = new Redis(this.redisUrl, { maxRetriesPerRequest: null, lazyConnect: false });
    connection.on('error', (err) => this.unavailable(err));
    const worker = new Worker(
      `jobs-${stage}`,
      async (message) => {
        const jobId = (message.data as { jobId: string }).jobId;
        this.running.add(`${stage} ${jobId}`);
        const handled = run(jobId);
        this.handling.add(handled);
        try {
          await handled;
        } finally {
          this.handling.delete(handled);
        }
      },
      {
        connection,
        prefix: this.prefix,
        concurrency,
        // Outlasting the job's lease, and checked often: a dead worker's job is taken within the
        // lease plus 10 s (src/domain/job-lease.ts).
        lockDuration: QUEUE_LOCK_MS,
        lockRenewTime: QUEUE_LOCK_RENEW_MS,
        stalledInterval: QUEUE_STALLED_CHECK_MS,
      },
    );
    worker.on('error', (err) => this.#failed(err, `BullMQ worker error on stage ${stage} (it retries)`));
    // Emitted once the message is removed (removeOnComplete / removeOnFail), so a re-add is not dropped.
    worker.on('completed', (message) => this.finished(stage, (message.data as { jobId?: string }).jobId));
    // The runner handles a job's own failures; what reaches BullMQ is the runner failing to record one.
    worker.on('failed', (message, err) => {
      const jobId = (message?.data as { jobId?: string } | undefined)?.jobId;
      this.report(err, `job ${jobId ?? '?'} message failed at stage ${stage}`);
      this.finished(stage, jobId);
    });
    this.workers.push({ worker, connection });
  }

  /**
   * Stops taking messages. The running handlers are awaited first (the runner hands their jobs
   * back); what then needs Redis (finishing their messages, adding the handed-back jobs again) gets
   * the timeout, after which the connections are dropped: a worker whose Redis is away still stops,
   * and the re-offer or the stalled-message check announces its jobs again.
   */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    await Promise.allSettled([...this.handling]);
    const closing = Promise.all(this.workers.map(({ worker }) => worker.close())).then(() =>
      Promise.allSettled([...this.adding]),
    );
    await this.#bounded(closing).catch(() => undefined);
    for (const { worker, connection } of this.workers) {
      void worker.disconnect().catch(() => undefined);
      connection.disconnect();
    }
    await this.#bounded(Promise.all([...this.queues.values()].map((q) => q.close()))).catch(() => undefined);
    this.producer.disconnect();
  }
}
