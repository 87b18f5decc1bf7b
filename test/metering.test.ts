import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { listLedger } from '../src/store/credits.ts';
import { loadConfig } from '../src/config.ts';
import { newDashboardUser, signedIn } from './helpers/dashboard.ts';

const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav'); // 6.01 s: 7 credits

test('METERING is on by default, off only when asked, and nothing else is accepted', () => {
  expect(loadConfig({}).metering).toBe(true);
  expect(loadConfig({ METERING: 'on' }).metering).toBe(true);
  expect(loadConfig({ METERING: 'off' }).metering).toBe(false);
  expect(() => loadConfig({ METERING: 'false' })).toThrow(/METERING/);
});

/**
 * A personal install: METERING=off. Real separations run, and no credit moves. A second server on
 * the same data folder with metering on stands for the setting changed between a job's creation
 * and its completion, both ways.
 */
describe('METERING=off', () => {
  let off: TestServer;
  let on: TestServer;
  let workers: Workers | undefined;
  let admin: { id: string; key: string };
  let user: { id: string; key: string };

  beforeAll(async () => {
    const env = { STEMFORGE_MODELS_DIR: sharedPath('models'), WORKER_CONCURRENCY: '1' };
    off = await startTestServer('sqlite', { ...env, METERING: 'off' });
    on = await startTestServer('sqlite', { ...env, STEMFORGE_DATA_DIR: off.dataDir });
    admin = await off.newAccount();
    user = await off.newAccount(0);
  });
  afterAll(async () => {
    await workers?.stop();
    await on?.close();
    await off?.close();
  });

  const createJob = async (s: TestServer) => {
    const upload = await uploadFile(s, user.key, input, 'free.wav');
    const res = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST' },
    });
    return { res, created: (await res.clone().json()) as { id: string; creditsRequired: number } };
  };

  test('a job with an empty balance is accepted and holds nothing; completed where metering is on again, it costs nothing', async () => {
    const { res, created } = await createJob(off);
    expect(res.status).toBe(201);
    // What it would cost is still reported; nothing is held for it.
    expect(created.creditsRequired).toBe(7);
    expect(await listLedger(off.rt.db, user.id)).toEqual([]);

    workers = await startWorkers(on.rt);
    const { job } = await waitForJob(off, user.key, `/v1/jobs/${created.id}`);
    await workers.stop();
    workers = undefined;
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(0);
    expect(await listLedger(off.rt.db, user.id)).toEqual([]);

    const balance = await off.api('/v1/balance', { key: user.key });
    expect(await balance.json()).toEqual({
      balanceSeconds: 0,
      balanceMinutes: 0,
      balanceFormatted: '0 seconds',
      updatedAt: expect.any(String),
      metering: 'off',
    });
    expect(await (await on.api('/v1/balance', { key: user.key })).json()).toMatchObject({ metering: 'on' });
    // The credit metrics saw nothing held or charged for it, on either side.
    const total = async (c: { get(): Promise<{ values: Array<{ value: number }> }> }) =>
      (await c.get()).values.reduce((n, v) => n + v.value, 0);
    expect(await total(off.rt.metrics.creditsHeld)).toBe(0);
    expect(await total(on.rt.metrics.creditsCharged)).toBe(0);
  });

  test('grants still add to the balance; a job held before metering went off is released, not charged', async () => {
    const res = await off.api(`/v1/admin/accounts/${user.id}/credits`, {
      key: admin.key,
      method: 'POST',
      json: { seconds: 120, note: 'for later' },
    });
    expect(res.status).toBe(200);
    expect(await (await off.api('/v1/balance', { key: user.key })).json()).toMatchObject({
      balanceSeconds: 120,
      balanceFormatted: '2 minutes',
      metering: 'off',
    });
    const { res: made, created } = await createJob(on);
    expect(made.status).toBe(201);
    expect(await (await on.api('/v1/balance', { key: user.key })).json()).toMatchObject({ balanceSeconds: 113 });

    workers = await startWorkers(off.rt);
    const { job } = await waitForJob(off, user.key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(0);
    const lines = (await listLedger(off.rt.db, user.id)).filter((l) => l.job_id === created.id);
    expect(lines.map((l) => [l.kind, l.seconds, l.note])).toEqual([
      ['hold', 7, null],
      ['release', 7, 'metering is off'],
    ]);
    expect(await (await off.api('/v1/balance', { key: user.key })).json()).toMatchObject({ balanceSeconds: 120 });
  });

  test('the dashboard says metering is off', async () => {
    const c = await signedIn(off, await newDashboardUser(off));
    expect(await (await c.call('GET', '/overview')).json()).toMatchObject({ metering: false });
    expect(await (await c.call('GET', '/capabilities')).json()).toMatchObject({ metering: false });
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

/** Scale-out with uploads straight to S3 (issue 30, item 3): PostgreSQL, BullMQ on Redis, s3rver. */
async function startDirectUploadServer(s3: TestS3Server, metering: 'on' | 'off'): Promise<TestServer> {
  return startTestServer('postgres', {
    METERING: metering,
    STEMFORGE_MODE: 'scale-out',
    REDIS_URL: process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379',
    REDIS_PREFIX: `sftest-${randomBytes(4).toString('hex')}`,
    ...s3Settings(s3),
    STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
    STEMFORGE_MODELS_DIR: sharedPath('models'),
    WORKER_CONCURRENCY: '1',
  });
}

/**
 * Grants an upload, PUTs the clip to the bucket, creates a VOCALS job: the creation's answer. The
 * grant names the size, which a grant straight to S3 needs (signed as Content-Length).
 */
async function directJob(s: TestServer, key: string): Promise<Response> {
  const body = await readFile(input);
  const json = { filename: 'clip.wav', fileSizeBytes: body.length };
  const grant = (await (await s.api('/v1/upload', { key, method: 'POST', json })).json()) as {
    uploadUrl: string;
    uploadKey: string;
    contentType: string;
  };
  expect(new URL(grant.uploadUrl).pathname.startsWith('/v1/')).toBe(false);
  const put = await fetch(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': grant.contentType },
    body,
  });
  expect(put.status).toBe(200);
  return s.api('/v1/jobs', {
    key,
    method: 'POST',
    json: { uploadKey: grant.uploadKey, outputType: 'VOCALS', quality: 'FAST' },
  });
}

describe('uploads straight to S3 and credit (scale-out)', () => {
  let s3: TestS3Server;
  let s: TestServer | undefined;
  let workers: Workers | undefined;

  beforeAll(async () => {
    s3 = await startS3Server('stemforge-metering');
  });
  afterEach(async () => {
    await workers?.stop();
    await s?.close();
    workers = undefined;
    s = undefined;
  });
  afterAll(async () => {
    await s3?.close();
  });

  test('METERING=off: an empty balance, a measured length, no hold and no charge', async () => {
    s = await startDirectUploadServer(s3, 'off');
    workers = await startWorkers(s.rt);
    await s.newAccount(); // the admin
    const user = await s.newAccount(0);
    const res = await directJob(s, user.key);
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string };
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('COMPLETED');
    // Measured by the worker: 6.01 s, billed as 7 (what it would have cost).
    expect(job.input.durationSeconds).toBe(7);
    expect(job.creditsCharged).toBe(0);
    expect(await listLedger(s.rt.db, user.id)).toEqual([]);
  });

  test('metering on: an admin whose balance falls short of the measured length is told how to grant', async () => {
    s = await startDirectUploadServer(s3, 'on');
    workers = await startWorkers(s.rt);
    const admin = await s.newAccount(5);
    const res = await directJob(s, admin.key);
    expect(res.status).toBe(201);
    const created = (await res.json()) as { id: string };
    const { job } = await waitForJob(s, admin.key, `/v1/jobs/${created.id}`);
    expect(job.status).toBe('FAILED');
    expect(job.errorDetails.code).toBe('INSUFFICIENT_CREDITS');
    expect(job.errorMessage).toContain('needs 7 credits');
    expect(job.errorMessage).toContain(`credits grant --account ${admin.id} --seconds 2`);
    expect(job.errorMessage).toContain(`${s.base}/admin`);
  });
});
