import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { listLedger } from '../src/store/credits.ts';
import { loadConfig } from '../src/config.ts';

const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav'); // 6.01 s: 7 credits

test('METERING is on by default, off only when asked, and nothing else is accepted', () => {
  expect(loadConfig({}).metering).toBe(true);
  expect(loadConfig({ METERING: 'on' }).metering).toBe(true);
  expect(loadConfig({ METERING: 'off' }).metering).toBe(false);
  expect(() => loadConfig({ METERING: 'false' })).toThrow(/METERING/);
});

/** A personal install: METERING=off. A real separation runs, and no credit moves. */
describe('METERING=off', () => {
  let s: TestServer;
  let workers: Workers;
  let admin: { id: string; key: string };
  let user: { id: string; key: string };

  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      METERING: 'off',
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
    });
    admin = await s.newAccount();
    user = await s.newAccount(0);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('a job with an empty balance is accepted, holds nothing, completes and charges nothing', async () => {
    const upload = await uploadFile(s, user.key, input, 'free.wav');
    const res = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST' },
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string; creditsRequired: number };
    // What it would cost is still reported; nothing is held for it.
    expect(created.creditsRequired).toBe(7);
    expect(await listLedger(s.rt.db, user.id)).toEqual([]);

    workers = await startWorkers(s.rt);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(0);
    expect(await listLedger(s.rt.db, user.id)).toEqual([]);

    const balance = await s.api('/v1/balance', { key: user.key });
    expect(await balance.json()).toEqual({
      balanceSeconds: 0,
      balanceMinutes: 0,
      balanceFormatted: '0 seconds',
      updatedAt: expect.any(String),
      metering: 'off',
    });
  });

  test('grants still add to the balance, which jobs never take from', async () => {
    const res = await s.api(`/v1/admin/accounts/${user.id}/credits`, {
      key: admin.key,
      method: 'POST',
      json: { seconds: 120, note: 'for later' },
    });
    expect(res.status).toBe(200);
    expect(await (await s.api('/v1/balance', { key: user.key })).json()).toMatchObject({
      balanceSeconds: 120,
      balanceFormatted: '2 minutes',
      metering: 'off',
    });
  });
});

describe('the 402 answer tells an admin how to grant credit', () => {
  let s: TestServer;
  let admin: { id: string; key: string };
  let user: { id: string; key: string };

  beforeAll(async () => {
    s = await startTestServer('sqlite');
    admin = await s.newAccount(0);
    user = await s.newAccount(0);
  });
  afterAll(async () => {
    await s?.close();
  });

  const create = async (who: { key: string }) => {
    const upload = await uploadFile(s, who.key, input, 'song.wav');
    const res = await s.api('/v1/jobs', { key: who.key, method: 'POST', json: { uploadKey: upload } });
    expect(res.status).toBe(402);
    return ((await res.json()) as { error: { code: string; message: string; requiredSeconds: number } }).error;
  };

  test('an admin reads the dashboard page and the exact command', async () => {
    const e = await create(admin);
    expect(e.code).toBe('INSUFFICIENT_CREDITS');
    expect(e.requiredSeconds).toBe(7);
    expect(e.message).toContain(`${s.base}/admin`);
    expect(e.message).toContain(`npx stemforge credits grant --account ${admin.id} --seconds 7`);
    expect(e.message).toContain('METERING=off');
  });

  test('any other account reads only what it needs and the balance', async () => {
    const e = await create(user);
    expect(e.message).toBe('This job needs 7 credits (seconds); the balance is 0.');
  });
});
