import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { TEST_POSTGRES_URL } from './helpers/db.ts';
import { trimClip } from './helpers/denoise-clip.ts';
import { startStemforgeProcess, type StemforgeProcess } from './helpers/stemforge-process.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

/**
 * The scale-out deployment, for real: PostgreSQL, BullMQ on Redis, S3-compatible storage (s3rver on
 * loopback), and separate API (`serve --no-workers`) and worker (`worker`) processes.
 */
describe('scale-out deployment: API and worker processes over PostgreSQL, Redis and S3', () => {
  const database = `sf_scaleout_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  let s3: TestS3Server;
  let api: StemforgeProcess;
  let worker: StemforgeProcess;
  let base: string;
  const dataDirs: string[] = [];

  beforeAll(async () => {
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    s3 = await startS3Server('stemforge-scaleout');
    const port = await freePort();
    base = `http://127.0.0.1:${port}`;
    const url = new URL(TEST_POSTGRES_URL);
    url.pathname = `/${database}`;
    const common = {
      STEMFORGE_MODE: 'scale-out',
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: `sftest-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    };
    const dir = () => {
      const d = mkdtempSync(join(tmpdir(), 'stemforge-scale-'));
      dataDirs.push(d);
      return d;
    };
    // The API host has no models at all: what it accepts must come from the worker's records.
    const apiData = dir();
    api = await startStemforgeProcess(
      ['serve', '--no-workers'],
      { ...common, PORT: String(port), STEMFORGE_DATA_DIR: apiData, STEMFORGE_MODELS_DIR: join(apiData, 'models') },
      'Stemforge listening',
    );
    worker = await startStemforgeProcess(
      ['worker'],
      { ...common, STEMFORGE_DATA_DIR: dir(), STEMFORGE_MODELS_DIR: sharedPath('models') },
      'Stemforge worker started',
    );
  });

  afterAll(async () => {
    await api?.stop();
    await worker?.stop();
    await s3?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    for (const d of dataDirs) await rm(d, { recursive: true, force: true });
  });

  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${base}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${/sk_live_[0-9A-Za-z]+/.exec(api.out())?.[0]}`,
        ...(init.json ? { 'content-type': 'application/json' } : {}),
      },
      body: init.json ? JSON.stringify(init.json) : init.body,
    });
  const createDenoiseJob = async () => {
    const clip = await trimClip(
      sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
      join(dataDirs[0]!, `noisy-${randomBytes(3).toString('hex')}.wav`),
      6,
    );
    const form = new FormData();
    form.append('file', new Blob([await readFile(clip)]), 'interview.wav');
    const uploaded: any = await (await call('/v1/files/upload', { method: 'POST', body: form })).json();
    return call('/v1/denoise-jobs', {
      method: 'POST',
      json: {
        inputFileName: 'interview.wav',
        inputFilePath: uploaded.uploadKey,
        inputFileSize: uploaded.fileSizeBytes,
        durationSeconds: 6,
      },
    });
  };

  test('a job created on the API process is separated by the worker process and downloads from S3', async () => {
    expect(/sk_live_[0-9A-Za-z]+/.exec(api.out())?.[0]).toBeTruthy();
    const grant: any = await (await call('/v1/upload', { method: 'POST', json: { filename: 'falcon.wav' } })).json();
    // Issue 30: the file goes straight to the bucket; the worker process measures it.
    expect(grant.uploadUrl.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/`)).toBe(true);
    const put = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: await readFile(sharedPath('audio', 'musdb-falcon69', 'mixture.wav')),
    });
    expect(put.status).toBe(200);
    const created: any = await (
      await call('/v1/jobs', {
        method: 'POST',
        json: { uploadKey: grant.uploadKey, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' },
      })
    ).json();
    expect(created.status).toBe('PENDING');
    let job: any;
    for (let i = 0; i < 600; i++) {
      job = await (await call(`/v1/jobs/${created.id}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.input.durationSeconds).toBeGreaterThan(0);
    expect(job.creditsCharged).toBe(job.input.durationSeconds);
    expect(job.outputs.vocals.url.startsWith(s3.endpoint)).toBe(true);
    const res = await fetch(job.outputs.vocals.url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.length).toBeGreaterThan(6 * 44_100 * 4 * 0.9);
  });

  test('models come from the live workers: voice cleaning is accepted (the worker has dfn3, the API host nothing), SIX_STEMS is refused', async () => {
    const res = await createDenoiseJob();
    expect(res.status).toBe(200);
    const created: any = await res.json();
    let job: any;
    for (let i = 0; i < 240; i++) {
      job = await (await call(`/v1/denoise-jobs/${created.jobId}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.status).toBe('COMPLETED');

    const grant: any = await (await call('/v1/upload', { method: 'POST', json: { filename: 'falcon.wav' } })).json();
    const six = await call('/v1/jobs', {
      method: 'POST',
      json: { uploadKey: grant.uploadKey, outputType: 'SIX_STEMS', quality: 'BEST' },
    });
    expect(six.status).toBe(400);
    const { error }: any = await six.json();
    expect(error.code).toBe('MODEL_NOT_INSTALLED');
    expect(error.message).toContain('not installed on any running worker');
  });

  test('a stopped worker takes its models with it: voice cleaning is then refused', async () => {
    await worker.stop();
    const res = await createDenoiseJob();
    expect(res.status).toBe(400);
    const { error }: any = await res.json();
    expect(error.code).toBe('MODEL_NOT_INSTALLED');
    expect(error.message).toContain("'dfn3'");
  });
});
