import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { pino } from 'pino';
import { freshDatabase, type TestDatabase } from './helpers/db.ts';
import { openDatabase, type DatabaseHandle } from '../src/store/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import { claimJob, findJob, insertJob, listRunnableJobs, transitionHeldJob, type JobRow } from '../src/store/jobs.ts';
import { pendingJobRow } from './helpers/job-row.ts';
import type { Db, JobKind } from '../src/store/schema.ts';
import type { JobQueue } from '../src/queue/job-queue.ts';
import { DbQueue } from '../src/queue/db-queue.ts';
import { BullQueue } from '../src/queue/bullmq-queue.ts';
import { Queue } from 'bullmq';
import { kindsInStage, type Stage } from '../src/domain/job-kinds.ts';

/**
 * The job-queue port's conformance suite (after BullMQ's adapter conformance tests): the same cases
 * against the database queue on SQLite and on PostgreSQL, and BullMQ on a real Redis. As in the
 * service, the database row is the job's truth and a consumer claims it before running, so "runs
 * once" means one claimed execution, however many announcements or consumers there are. Each queue
 * instance stands for one process: its own adapter and its own database connection.
 */
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const silent = pino({ level: 'silent' });

interface Adapter {
  name: string;
  dialect: 'sqlite' | 'postgres';
  /** A queue as another process would have it, over its own connection to `handle`. */
  create(handle: DatabaseHandle, prefix: string): JobQueue;
}

const ADAPTERS: Adapter[] = [
  {
    name: 'database queue (SQLite)',
    dialect: 'sqlite',
    create: (h) => new DbQueue(h.db, { pollMs: 200, log: silent }),
  },
  {
    name: 'database queue (PostgreSQL)',
    dialect: 'postgres',
    create: (h) => new DbQueue(h.db, { pollMs: 200, log: silent }),
  },
  {
    name: 'BullMQ on Redis (PostgreSQL rows)',
    dialect: 'postgres',
    create: (_h, prefix) => new BullQueue(REDIS_URL, { prefix, log: silent }),
  },
];

interface Execution {
  jobId: string;
  stage: Stage;
  consumer: string;
  startedAt: number;
  endedAt?: number;
  attempt: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

async function until(check: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await sleep(25);
  }
}

describe.each(ADAPTERS)('job queue conformance: $name', (adapter) => {
  let database: TestDatabase;
  let accountId: string;
  let prefix: string;
  const handles: DatabaseHandle[] = [];
  const queues: JobQueue[] = [];
  let executions: Execution[] = [];

  beforeAll(async () => {
    database = await freshDatabase(adapter.dialect);
    accountId = (await createAccount(database.db, 'queue@example.com', 0)).id;
  });
  afterAll(async () => {
    await database?.destroy();
  });
  beforeEach(() => {
    prefix = `sfq-${randomBytes(4).toString('hex')}`;
    executions = [];
  });
  afterEach(async () => {
    await Promise.all(queues.splice(0).map((q) => q.close()));
    await Promise.all(handles.splice(0).map((h) => h.close()));
    await database.db.deleteFrom('jobs').execute();
    if (adapter.name.startsWith('BullMQ')) {
      const redis = new Redis(REDIS_URL);
      const keys = await redis.keys(`${prefix}:*`);
      if (keys.length) await redis.del(...keys);
      redis.disconnect();
    }
  });

  /** A queue of a new "process", with its own database connection. */
  const process_ = (): { queue: JobQueue; db: Db } => {
    const handle = openDatabase(database.url, { schema: database.schema });
    handles.push(handle);
    const queue = adapter.create(handle, prefix);
    queues.push(queue);
    return { queue, db: handle.db };
  };

  /** A runnable job row: stem jobs have inference work; a video job without a source has download work. */
  const addJob = async (kind: JobKind = 'stem', set: Partial<JobRow> = {}): Promise<JobRow> => {
    const row = pendingJobRow(accountId, {
      kind,
      source_key: kind === 'video' ? null : 'uploads/x/source',
      ...set,
    });
    await insertJob(database.db, row);
    return row;
  };

  /**
   * Consumes a stage the way the job runner does: claim the row, run, then complete it, or (when
   * `work` throws) put it back as PENDING with a backoff and announce it again with that delay.
   */
  const consume = (
    p: { queue: JobQueue; db: Db },
    stage: Stage,
    concurrency: number,
    work: (e: Execution) => Promise<void> = async () => undefined,
    retryDelayMs = 400,
  ) => {
    const consumer = randomBytes(3).toString('hex');
    p.queue.consume(stage, concurrency, async (jobId) => {
      const job = await claimJob(p.db, jobId, consumer, 30_000);
      if (!job) return;
      const e: Execution = { jobId, stage, consumer, startedAt: Date.now(), attempt: job.attempts };
      executions.push(e);
      try {
        await work(e);
        e.endedAt = Date.now();
        await transitionHeldJob(p.db, jobId, consumer, { status: 'COMPLETED', completed_at: new Date().toISOString() });
      } catch {
        e.endedAt = Date.now();
        await transitionHeldJob(p.db, jobId, consumer, {
          status: 'PENDING',
          next_attempt_at: new Date(Date.now() + retryDelayMs).toISOString(),
        });
        await p.queue.enqueue(job, stage, retryDelayMs);
      }
    });
    return consumer;
  };

  const status = async (id: string) => (await findJob(database.db, id))?.status;
  const completed = async (ids: string[]) => (await Promise.all(ids.map(status))).every((s) => s === 'COMPLETED');
  const runsOf = (id: string) => executions.filter((e) => e.jobId === id);

  test('every announced job runs exactly once, with consumers of two processes racing and duplicate announcements', async () => {
    const a = process_();
    const b = process_();
    const producer = process_();
    consume(a, 'inference', 3, () => sleep(20));
    consume(b, 'inference', 3, () => sleep(20));
    const jobs = await Promise.all(Array.from({ length: 12 }, () => addJob('stem')));
    for (const job of jobs) {
      await producer.queue.enqueue(job, 'inference');
      await a.queue.enqueue(job, 'inference'); // a duplicate announcement, as after a re-offer
    }
    await until(() => completed(jobs.map((j) => j.id)));
    await sleep(600); // duplicates still in flight must find nothing to run
    for (const job of jobs) expect(runsOf(job.id)).toHaveLength(1);
    expect(executions).toHaveLength(12);
  });

  test('a delayed announcement does not run before its delay, and runs soon after', async () => {
    const p = process_();
    consume(p, 'inference', 1);
    const delayMs = 800;
    const announcedAt = Date.now();
    const job = await addJob('stem', { next_attempt_at: new Date(announcedAt + delayMs).toISOString() });
    await p.queue.enqueue(job, 'inference', delayMs);
    await until(() => completed([job.id]));
    const [run] = runsOf(job.id);
    expect(run!.startedAt - announcedAt).toBeGreaterThanOrEqual(delayMs - 20);
    expect(run!.startedAt - announcedAt).toBeLessThan(delayMs + 5_000);
  });

  test('a failed attempt comes back after its backoff and then completes', async () => {
    const p = process_();
    consume(
      p,
      'inference',
      1,
      async (e) => {
        if (e.attempt === 1) throw new Error('transient');
      },
      500,
    );
    const job = await addJob('stem');
    await p.queue.enqueue(job, 'inference');
    await until(() => completed([job.id]));
    const runs = runsOf(job.id);
    expect(runs.map((r) => r.attempt)).toEqual([1, 2]);
    expect(runs[1]!.startedAt - runs[0]!.endedAt!).toBeGreaterThanOrEqual(480);
  });

  test('a lost announcement and a dead worker’s job both run once when runnable jobs are offered again', async () => {
    const p = process_();
    consume(p, 'inference', 2);
    // Committed but never announced (the process died between commit and enqueue).
    const lost = await addJob('stem');
    // Claimed by a worker that died: its lease has run out.
    const orphan = await addJob('stem', {
      status: 'PROCESSING',
      attempts: 1,
      lease_owner: 'w_dead',
      lease_expires_at: new Date(Date.now() - 1000).toISOString(),
    });
    // The re-offer the workers run now and then in scale-out (the database queue polls anyway).
    const reoffer = async () => {
      for (const job of await listRunnableJobs(database.db, kindsInStage('inference'), 'inference', 50)) {
        await p.queue.enqueue(job, 'inference');
      }
    };
    await reoffer();
    await until(() => completed([lost.id, orphan.id]));
    await reoffer(); // nothing runnable is left: a second offer runs nothing again
    await sleep(500);
    expect(runsOf(lost.id)).toHaveLength(1);
    // Taking over a dead worker's attempt is a crash, not a new attempt: the error budget is intact.
    expect(runsOf(orphan.id).map((r) => r.attempt)).toEqual([1]);
    expect(await findJob(database.db, orphan.id)).toMatchObject({ attempts: 1, crashes: 1 });
  });

  test('close waits for running handlers, then takes no more work; the work waits for the next consumer', async () => {
    const first = process_();
    let finished = false;
    consume(first, 'inference', 1, async () => {
      await sleep(500);
      finished = true;
    });
    const running = await addJob('stem');
    await first.queue.enqueue(running, 'inference');
    await until(() => runsOf(running.id).length === 1);
    await first.queue.close();
    expect(finished).toBe(true);
    expect(await status(running.id)).toBe('COMPLETED');

    const producer = process_();
    const later = await addJob('stem');
    await producer.queue.enqueue(later, 'inference');
    await sleep(1_000);
    expect(runsOf(later.id)).toHaveLength(0);
    expect(await status(later.id)).toBe('PENDING');

    consume(process_(), 'inference', 1);
    await until(() => completed([later.id]));
    expect(runsOf(later.id)).toHaveLength(1);
  });

  test('each stage has its own concurrency, runs only its own work, and never waits for the other', async () => {
    const p = process_();
    const active: Record<Stage, number> = { inference: 0, download: 0 };
    const peak: Record<Stage, number> = { inference: 0, download: 0 };
    const busy = (stage: Stage) => async () => {
      active[stage] += 1;
      peak[stage] = Math.max(peak[stage], active[stage]);
      await sleep(250);
      active[stage] -= 1;
    };
    consume(p, 'inference', 2, busy('inference'));
    consume(p, 'download', 1, busy('download'));
    const stems = await Promise.all(Array.from({ length: 6 }, () => addJob('stem')));
    const videos = await Promise.all(Array.from({ length: 3 }, () => addJob('video')));
    for (const job of stems) await p.queue.enqueue(job, 'inference');
    for (const job of videos) await p.queue.enqueue(job, 'download');
    await until(() => completed([...stems, ...videos].map((j) => j.id)));
    expect(peak).toEqual({ inference: 2, download: 1 });
    for (const job of stems) expect(runsOf(job.id).map((r) => r.stage)).toEqual(['inference']);
    for (const job of videos) expect(runsOf(job.id).map((r) => r.stage)).toEqual(['download']);
    // Downloads ran while separations were still going (6 jobs, 2 at a time, take 3 rounds).
    const lastInferenceEnd = Math.max(...executions.filter((e) => e.stage === 'inference').map((e) => e.endedAt!));
    const firstDownloadStart = Math.min(...executions.filter((e) => e.stage === 'download').map((e) => e.startedAt));
    expect(firstDownloadStart).toBeLessThan(lastInferenceEnd - 250);
  });

  test.runIf(adapter.name.startsWith('BullMQ'))(
    'BullMQ: re-offering runnable jobs again and again leaves one waiting message per job',
    async () => {
      const a = process_();
      const b = process_();
      const jobs = await Promise.all(Array.from({ length: 6 }, () => addJob('stem')));
      // The workers' periodic re-offer, from two processes, many times over, with nobody consuming.
      for (let round = 0; round < 8; round++) {
        for (const p of [a, b]) {
          for (const job of await listRunnableJobs(p.db, kindsInStage('inference'), 'inference', 50)) {
            await p.queue.enqueue(job, 'inference');
          }
        }
      }
      await a.queue.enqueue(jobs[0]!, 'inference', 60_000); // a delayed announcement of a waiting job
      const connection = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
      const inspect = new Queue('jobs-inference', { connection, prefix });
      try {
        const messages = await inspect.getJobs(['waiting', 'delayed', 'prioritized', 'active']);
        const perJob = new Map<string, number>();
        for (const m of messages) perJob.set(m.data.jobId, (perJob.get(m.data.jobId) ?? 0) + 1);
        expect([...perJob.keys()].sort()).toEqual(jobs.map((j) => j.id).sort());
        expect([...perJob.values()]).toEqual(jobs.map(() => 1));
      } finally {
        await inspect.close();
        connection.disconnect();
      }
      // They still run, once each.
      consume(a, 'inference', 3);
      await until(() => completed(jobs.map((j) => j.id)));
      for (const job of jobs) expect(runsOf(job.id)).toHaveLength(1);
    },
  );
});

describe('queue adapters log the errors they survive', () => {
  const capture = () => {
    const lines: Array<Record<string, any>> = [];
    const log = pino({ level: 'warn' }, { write: (line: string) => void lines.push(JSON.parse(line)) });
    return { lines, log };
  };

  test('the database queue logs a failed poll (database gone) once, and keeps polling', async () => {
    const { lines, log } = capture();
    const database = await freshDatabase('sqlite');
    await database.close();
    const queue = new DbQueue(database.db, { pollMs: 20, log });
    queue.consume('inference', 1, async () => undefined);
    await until(() => lines.length > 0);
    await sleep(200); // about ten more failed polls: the same message is not repeated
    await queue.close();
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatchObject({ level: 40, component: 'db-queue' });
    expect(lines[0]!.msg).toContain('could not list runnable jobs for stage inference');
    expect(lines[0]!.error.message).toBeTruthy();
  });

  test('BullMQ logs an unreachable Redis without the password of its URL', async () => {
    const { lines, log } = capture();
    const queue = new BullQueue('redis://stemforge:hunter2-secret@127.0.0.1:9', { log });
    await until(() => lines.length > 0);
    await queue.close();
    expect(lines[0]).toMatchObject({ level: 40, component: 'bullmq-queue' });
    expect(lines[0]!.msg).toContain('Redis connection error');
    expect(lines[0]!.error.code).toBe('ECONNREFUSED');
    expect(JSON.stringify(lines)).not.toContain('hunter2');
  });
});
