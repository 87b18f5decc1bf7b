import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { startScaleOut, type ScaleOut } from './helpers/scale-out.ts';
import { startStemforgeProcess, type StemforgeProcess } from './helpers/stemforge-process.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { timed, until } from './helpers/outage.ts';

/** The child processes of `pid` (a worker's separation process). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('pgrep', ['-P', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .filter(Boolean)
      .map(Number);
  } catch {
    return []; // pgrep exits 1 when there are none
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * SIGTERM to the worker running a separation: it ends (its separation process too) within the grace
 * period, hands the job back and announces it again, and the other worker takes it at once (not
 * after a lease or a re-offer runs out); the job completes and is charged once.
 */
describe('a worker stopped mid-job hands it back', () => {
  let fleet: ScaleOut;
  let other: StemforgeProcess;
  let db: pg.Client;
  let key: string;
  const otherData = mkdtempSync(join(tmpdir(), 'stemforge-handback-'));

  beforeAll(async () => {
    fleet = await startScaleOut('handback');
    other = await startStemforgeProcess(
      ['worker'],
      { ...fleet.workerEnv, STEMFORGE_DATA_DIR: otherData },
      'Stemforge worker started',
    );
    key = fleet.key()!;
    db = new pg.Client({ connectionString: fleet.databaseUrl });
    await db.connect();
  }, 120_000);
  afterAll(async () => {
    await db?.end();
    await other?.stop();
    await fleet?.close();
    await rm(otherData, { recursive: true, force: true });
  });

  const api = (path: string, init: any = {}) =>
    fetch(`${fleet.base}${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : init.body,
    });

  test('SIGTERM mid-separation: the process and its separation process end, the other worker takes the job', async () => {
    const upload = await uploadFile({ api }, key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'falcon.wav');
    const created = (await (
      await api('/v1/jobs', { method: 'POST', json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST' } })
    ).json()) as { id: string };
    const row = async () =>
      (await db.query('select status, lease_owner, progress, attempts from jobs where id = $1', [created.id])).rows[0];
    await until(
      'the separation under way',
      async () => (await row()).status === 'PROCESSING' && (await row()).progress > 5,
      120_000,
    );
    const first = await row();

    // The worker running it is the one with a separation process.
    const running = [fleet.worker, other].find((w) => childrenOf(w.child.pid!).length > 0);
    if (!running) throw new Error('no worker has a separation process');
    const separation = childrenOf(running.child.pid!);
    const { ms } = await timed(async () => {
      running.child.kill('SIGTERM');
      await once(running.child, 'exit');
    });
    // Within the grace period (SHUTDOWN_GRACE_SECONDS, 30 s), with slack for a loaded machine.
    expect(ms).toBeLessThan(40_000);
    expect(running.child.exitCode, running.out()).toBe(0);
    // Gone with it (a moment for the kernel to finish a killed process).
    await until('the separation process ends', async () => separation.filter(alive).length === 0, 10_000);

    // Taken by the other worker well before the 30 s lease or the 30 s re-offer would free it.
    const taken = await until(
      'the other worker takes the job',
      async () => {
        const r = await row();
        return r.status !== 'PENDING' && r.lease_owner !== first.lease_owner;
      },
      20_000,
    );
    expect(taken).toBeLessThan(20_000);
    const { job } = await waitForJob({ api }, key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('COMPLETED');
    expect((await row()).attempts).toBe(first.attempts);
    const charges = await db.query(`select count(*) from credit_ledger where job_id = $1 and kind = 'charge'`, [
      created.id,
    ]);
    expect(Number(charges.rows[0].count)).toBe(1);
  }, 300_000);
});
