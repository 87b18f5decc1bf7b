import type { Db, JobKind } from '../store/schema.ts';
import { listRunnableJobs } from '../store/jobs.ts';
import { kindsInStage, type Stage } from '../domain/job-kinds.ts';
import type { JobQueue } from './job-queue.ts';
import { pino, type Logger } from 'pino';
import { swallowedErrorLog } from './log-swallowed.ts';

export interface DbQueueOptions {
  /** How often each stage's pool looks for runnable jobs when nothing woke it. */
  pollMs?: number;
  /** Where the errors this adapter survives (database briefly away, a handler that threw) are reported. */
  log?: Logger;
}

/**
 * Embedded queue adapter: workers poll the database for runnable jobs (and are woken at once by
 * `enqueue` in the same process). Because the queue *is* the jobs table, nothing is lost when the
 * process dies: unfinished jobs are simply runnable again on the next start.
 */
export class DbQueue implements JobQueue {
  private readonly pools: Array<{ stop: () => Promise<void>; wake: () => void; stage: Stage }> = [];
  private closed = false;
  private readonly pollMs: number;
  private readonly report: (err: unknown, what: string) => void;

  constructor(
    private readonly db: Db,
    options: DbQueueOptions = {},
  ) {
    this.pollMs = options.pollMs ?? 1000;
    this.report = swallowedErrorLog(options.log ?? pino({ level: 'silent' }), 'db-queue');
  }

  async enqueue(_job: { id: string; kind: JobKind }, stage: Stage, delayMs = 0): Promise<void> {
    const wake = () => {
      for (const p of this.pools) if (p.stage === stage) p.wake();
    };
    if (delayMs > 0) setTimeout(wake, delayMs).unref();
    else wake();
  }

  consume(stage: Stage, concurrency: number, run: (jobId: string) => Promise<void>): void {
    const kinds = kindsInStage(stage);
    const running = new Set<string>();
    const inFlight = new Set<Promise<void>>();
    let timer: NodeJS.Timeout | undefined;
    let scanning = false;
    let rescan = false;

    const scan = async () => {
      if (this.closed) return;
      if (scanning) {
        rescan = true;
        return;
      }
      scanning = true;
      try {
        do {
          rescan = false;
          const free = concurrency - running.size;
          if (free <= 0) break;
          const jobs = await listRunnableJobs(this.db, kinds, stage, free + running.size);
          for (const { id } of jobs) {
            if (running.size >= concurrency || this.closed) break;
            if (running.has(id)) continue;
            running.add(id);
            const p = run(id)
              .catch((err) => this.report(err, `job ${id} handler failed at stage ${stage}`))
              .finally(() => {
                running.delete(id);
                inFlight.delete(p);
                void scan();
              });
            inFlight.add(p);
          }
        } while (rescan && !this.closed);
      } catch (err) {
        // Database briefly unavailable: the next poll tries again.
        this.report(err, `could not list runnable jobs for stage ${stage} (the next poll retries)`);
      } finally {
        scanning = false;
      }
    };
    const loop = () => {
      timer = setTimeout(async () => {
        await scan();
        if (!this.closed) loop();
      }, this.pollMs);
      timer.unref();
    };
    void scan();
    loop();
    this.pools.push({
      stage,
      wake: () => void scan(),
      stop: async () => {
        clearTimeout(timer);
        await Promise.allSettled([...inFlight]);
      },
    });
  }

  async close(): Promise<void> {
    this.closed = true;
    await Promise.all(this.pools.map((p) => p.stop()));
  }
}
