import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import type { Engines } from '../src/engines/engines.ts';
import { claimJob, findJob } from '../src/store/jobs.ts';
import { raiseWorkKept } from '../src/store/kept-work.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { listJobDeliveries } from '../src/store/webhook-deliveries.ts';
import { runJobStage, type Runner } from '../src/worker/run-job.ts';
import { STAGE_HANDLERS } from '../src/worker/stage-handlers.ts';
import { JOB_CRASHED_CODE } from '../src/domain/vocabulary.ts';

/**
 * Crashes and errors are counted apart. A crash is what a dead worker leaves: a PROCESSING job whose
 * lease ran out, taken over by the next claim. Here a "worker" claims the row (the real claim) and
 * dies (its lease is made to run out), as many times as the test needs; the runner then meets the
 * job as a restarted worker would. Deaths count against JOB_MAX_CRASHES only at the same place: a
 * worker that kept work (a separation's checkpoint) since the previous death starts the count again.
 */
describe('crash bound (JOB_MAX_CRASHES) apart from the error retry budget', () => {
  let s: TestServer;
  let separateCalls = 0;
  const failing = (config: any): Engines => {
    const real = createEngines(config);
    return {
      ...real,
      separate: async () => {
        separateCalls++;
        throw new Error('simulated transient inference failure');
      },
    };
  };
  beforeAll(async () => {
    s = await startTestServer(
      'sqlite',
      {
        JOB_MAX_CRASHES: '3',
        JOB_MAX_ATTEMPTS: '2',
        JOB_RETRY_BASE_MS: '0',
        RATE_LIMIT_PER_MINUTE: '100000',
        ALLOW_PRIVATE_URLS: 'true',
      },
      {},
      { engines: failing },
    );
  });
  afterAll(async () => {
    await s?.close();
  });

  const runner = (): Runner => ({ services: s.rt, handlers: STAGE_HANDLERS, shutdown: new AbortController().signal });

  /** A worker claims the job and dies mid-attempt: its lease runs out with the job still PROCESSING. */
  const crashOnce = async (jobId: string, worker: string) => {
    expect(await claimJob(s.rt.db, jobId, worker, 30_000)).not.toBeNull();
    await s.rt.db
      .updateTable('jobs')
      .set({ lease_expires_at: new Date(Date.now() - 1000).toISOString() })
      .where('id', '=', jobId)
      .execute();
  };

  const newJob = async (user: { key: string }) => {
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'f.wav');
    const res = await s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey: upload } });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; creditsRequired: number };
  };

  test('crashes do not spend the error retries: after two crashes a transient error is still retried', async () => {
    const user = await s.newAccount(300);
    const created = await newJob(user);
    await crashOnce(created.id, 'w_dead0001');
    await crashOnce(created.id, 'w_dead0002');
    // The second claim took over a dead worker's attempt: one crash, still the first attempt.
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ attempts: 1, crashes: 1 });

    separateCalls = 0;
    await runJobStage(runner(), created.id, 'inference');
    // The runner's claim was the second crash; the attempt then failed with an error and is retried
    // (1 of JOB_MAX_ATTEMPTS 2 spent), where counting crashes as attempts would have failed it.
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ status: 'PENDING', attempts: 1, crashes: 2 });
    await runJobStage(runner(), created.id, 'inference');
    const job = await findJob(s.rt.db, created.id);
    expect(job).toMatchObject({ status: 'FAILED', attempts: 2, crashes: 2, error_code: 'PROCESSING_FAILED' });
    expect(separateCalls).toBe(2);
  });

  test('the third crash fails the job with JOB_CRASHED, releases its credits and sends job.failed', async () => {
    const user = await s.newAccount(300);
    const hook = await s.api('/v1/webhooks', {
      key: user.key,
      method: 'POST',
      json: { url: 'http://127.0.0.1:9/hook', events: ['job.failed'] },
    });
    expect(hook.status).toBe(201);
    const created = await newJob(user);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - created.creditsRequired);
    for (const w of ['w_dead0003', 'w_dead0004', 'w_dead0005']) await crashOnce(created.id, w);
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ status: 'PROCESSING', attempts: 1, crashes: 2 });

    separateCalls = 0;
    await runJobStage(runner(), created.id, 'inference');
    const job = await findJob(s.rt.db, created.id);
    expect(job).toMatchObject({ status: 'FAILED', crashes: 3, attempts: 1, error_code: JOB_CRASHED_CODE });
    expect(job!.error_message).toMatch(/stopped 3 times/);
    expect(separateCalls).toBe(0); // the poison input is not run again
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
    const moves = (await listLedger(s.rt.db, user.id)).filter((l) => l.job_id === created.id).map((l) => l.kind);
    expect(moves.sort()).toEqual(['hold', 'release']);
    expect((await listJobDeliveries(s.rt.db, created.id)).map((d) => d.event)).toEqual(['job.failed']);

    // As the API shows it.
    const shown: any = await (await s.api(`/v1/jobs/${created.id}`, { key: user.key })).json();
    expect(shown).toMatchObject({ status: 'FAILED', creditsCharged: 0, errorDetails: { code: JOB_CRASHED_CODE } });
  });

  test('deaths with work kept in between never add up; deaths at the same place do', async () => {
    const user = await s.newAccount(300);
    const created = await newJob(user);
    // Five deaths, each after the dead worker kept more work (segments checkpointed).
    for (let i = 1; i <= 5; i++) {
      const worker = `w_kept000${i}`;
      await crashOnce(created.id, worker);
      await raiseWorkKept(s.rt.db, created.id, worker, i * 1000);
    }
    // The next claim takes over the fifth: each death was past the one before.
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ crashes: 4, stalled_crashes: 1, work_kept: 5000 });
    separateCalls = 0;
    await runJobStage(runner(), created.id, 'inference');
    expect(separateCalls).toBe(1); // run (and its transient error retried), not failed as a poison input
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ status: 'PENDING', crashes: 5, stalled_crashes: 1 });

    // Now it dies three times at one place: no work kept past 5000.
    await crashOnce(created.id, 'w_stuck0001');
    await raiseWorkKept(s.rt.db, created.id, 'w_stuck0001', 5000); // not past it: not progress
    await crashOnce(created.id, 'w_stuck0002');
    expect(await findJob(s.rt.db, created.id)).toMatchObject({ stalled_crashes: 2, kept_at_crash: 5000 });
    separateCalls = 0;
    await runJobStage(runner(), created.id, 'inference');
    const job = await findJob(s.rt.db, created.id);
    expect(job).toMatchObject({ status: 'FAILED', stalled_crashes: 3, error_code: JOB_CRASHED_CODE });
    expect(job!.error_message).toMatch(/stopped 3 times at the same place/);
    expect(separateCalls).toBe(0);
  });
});
