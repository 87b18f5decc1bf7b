import { afterAll, describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, freePort } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { startServe } from './helpers/stemforge-process.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers } from '../src/worker/start.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import { connectDatabase } from '../src/store/db.ts';
import type { Engines } from '../src/engines/engines.ts';

describe('restart safety and failure handling', () => {
  const cleanups: Array<() => Promise<void>> = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  test('a process killed mid-job: the job completes after restart and is charged once', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-crash-'));
    cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
    const port = await freePort();
    const env = {
      STEMFORGE_DATA_DIR: dataDir,
      PORT: String(port),
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    const first = await startServe(env);
    expect(first.key).toMatch(/^sk_live_/);
    const key = first.key!;
    const base = `http://127.0.0.1:${port}`;
    const s = {
      base,
      api: (p: string, init: any = {}) =>
        fetch(`${base}${p}`, {
          ...init,
          headers: {
            authorization: `Bearer ${key}`,
            ...(init.json ? { 'content-type': 'application/json' } : {}),
            ...init.headers,
          },
          body: init.json ? JSON.stringify(init.json) : init.body,
        }),
    } as any;
    const upload = await uploadFile(s, key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'falcon.wav');
    const created: any = await (
      await s.api('/v1/jobs', { method: 'POST', json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST' } })
    ).json();
    // Wait until the separation is under way, then kill the process without warning.
    for (let i = 0; i < 600; i++) {
      const job: any = await (await s.api(`/v1/jobs/${created.id}`)).json();
      if (job.status === 'PROCESSING' && job.progress > 5) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));

    const second = await startServe(env);
    cleanups.push(async () => void second.child.kill('SIGTERM'));
    expect(second.key).toBeNull(); // no new account on a restart
    const { job } = await waitForJob(s, key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('COMPLETED');
    expect(created.creditsRequired).toBe(7); // 6.01 s, rounded up
    expect(job.creditsCharged).toBe(7);
    const balance: any = await (await s.api('/v1/balance')).json();
    expect(balance.balanceSeconds).toBe(300 - 7);
    second.child.kill('SIGTERM');
    await new Promise((r) => second.child.once('exit', r));
    const db = await connectDatabase(`sqlite:${join(dataDir, 'stemforge.db')}`);
    const ledger = await db.db
      .selectFrom('credit_ledger')
      .selectAll()
      .where('job_id', '=', created.id)
      .orderBy('id')
      .execute();
    await db.close();
    expect(ledger.map((l) => l.kind)).toEqual(['hold', 'charge']);
  });

  test('a job that keeps failing is FAILED after its retries, with a readable message and credits released', async () => {
    let calls = 0;
    const failing = (config: any): Engines => {
      const real = createEngines(config);
      return {
        ...real,
        separate: async () => {
          calls++;
          throw new Error('simulated transient inference failure');
        },
      };
    };
    const s = await startTestServer(
      'sqlite',
      { JOB_MAX_ATTEMPTS: '3', JOB_RETRY_BASE_MS: '100', RATE_LIMIT_PER_MINUTE: '100000' },
      {},
      { engines: failing },
    );
    const workers = await startWorkers(s.rt);
    cleanups.push(async () => {
      await workers.stop();
      await s.close();
    });
    const user = await s.newAccount(300);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'f.wav');
    const created: any = await (
      await s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey: upload } })
    ).json();
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - created.creditsRequired);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`, 60_000);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toBe('simulated transient inference failure');
    expect(job.creditsCharged).toBe(0);
    expect(job.outputs).toBeNull();
    expect(calls).toBe(3);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
    const ledger = await listLedger(s.rt.db, user.id);
    expect(ledger.filter((l) => l.job_id === created.id).map((l) => l.kind)).toEqual(['hold', 'release']);
  });
});
