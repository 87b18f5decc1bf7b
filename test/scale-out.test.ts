import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { freePort } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { TEST_POSTGRES_URL } from './helpers/db.ts';

const repo = resolve(import.meta.dirname, '..');
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

function start(
  command: string[],
  env: Record<string, string>,
  ready: string,
): Promise<{ child: ChildProcess; out: () => string }> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), ...command], {
      cwd: repo,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) resolvePromise({ child, out: () => out });
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.on('exit', (code) => reject(new Error(`${command[0]} exited (${code}): ${out}`)));
  });
}

/**
 * The scale-out deployment, for real: PostgreSQL, BullMQ on Redis, S3-compatible storage (s3rver on
 * loopback), and separate API (`serve --no-workers`) and worker (`worker`) processes.
 */
describe('scale-out deployment: API and worker processes over PostgreSQL, Redis and S3', () => {
  const database = `sf_scaleout_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
  let s3: TestS3Server;
  let api: { child: ChildProcess; out: () => string };
  let worker: { child: ChildProcess; out: () => string };
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
      DATABASE_URL: url.toString(),
      REDIS_URL,
      REDIS_PREFIX: `sftest-${randomBytes(4).toString('hex')}`,
      STORAGE: 's3',
      S3_BUCKET: s3.bucket,
      S3_REGION: s3.region,
      S3_ENDPOINT: s3.endpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
      LOG_LEVEL: 'warn',
    };
    const dir = () => {
      const d = mkdtempSync(join(tmpdir(), 'stemforge-scale-'));
      dataDirs.push(d);
      return d;
    };
    api = await start(
      ['serve', '--no-workers'],
      { ...common, PORT: String(port), STEMFORGE_DATA_DIR: dir() },
      'Stemforge listening',
    );
    worker = await start(['worker'], { ...common, STEMFORGE_DATA_DIR: dir() }, 'Stemforge worker started');
  });

  afterAll(async () => {
    for (const p of [api?.child, worker?.child]) {
      if (p && p.exitCode === null) {
        p.kill('SIGTERM');
        await new Promise((r) => p.once('exit', r));
      }
    }
    await s3?.close();
    await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
    await admin.end();
    for (const d of dataDirs) await rm(d, { recursive: true, force: true });
  });

  test('a job created on the API process is separated by the worker process and downloads from S3', async () => {
    const key = /sk_live_[0-9A-Za-z]+/.exec(api.out())?.[0];
    expect(key).toBeTruthy();
    const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
      fetch(`${base}${path}`, {
        ...init,
        headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
        body: init.json ? JSON.stringify(init.json) : init.body,
      });
    const grant: any = await (await call('/v1/upload', { method: 'POST', json: { filename: 'falcon.wav' } })).json();
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
    expect(job.outputs.vocals.url.startsWith(s3.endpoint)).toBe(true);
    const res = await fetch(job.outputs.vocals.url);
    expect(res.status).toBe(200);
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(bytes.subarray(0, 4).toString()).toBe('RIFF');
    expect(bytes.length).toBeGreaterThan(6 * 44_100 * 4 * 0.9);
  });
});
