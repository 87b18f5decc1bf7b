import type { Db, JobKind } from '../store/schema.ts';
import { listRunnableJobs } from '../store/jobs.ts';
import { kindsInStage, type Stage } from './job-catalog.ts';
import type { JobQueue } from './job-queue.ts';

/**
 * Embedded queue adapter: workers poll the database for runnable jobs (and are woken at once by
 * `enqueue` in the same process). Because the queue *is* the jobs table, nothing is lost when the
 * process dies: unfinished jobs are simply runnable again on the next start.
 */
export class DbQueue implements JobQueue {
  private readonly pools: Array<{ stop: () => Promise<void>; wake: () => void; stage: Stage }> = [];
  private closed = false;

  constructor(
    private readonly db: Db,
    private readonly pollMs = 1000,
  ) {}

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
              .catch(() => undefined)
              .finally(() => {
                running.delete(id);
                inFlight.delete(p);
                void scan();
              });
            inFlight.add(p);
          }
        } while (rescan && !this.closed);
      } catch {
        // Database briefly unavailable: the next poll tries again.
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
