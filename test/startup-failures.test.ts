import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import BetterSqlite3 from 'better-sqlite3';
import { freePort } from './helpers/server.ts';
import { TEST_POSTGRES_URL } from './helpers/db.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { runStemforgeToExit, startServe, startStemforgeProcess } from './helpers/stemforge-process.ts';

/**
 * Starts that cannot work stop within seconds, exit non-zero and name the setting and the cause;
 * what cannot stop a start (a store without a call the sweep uses) is one warning. Real processes,
 * real refusals: an S3 port nothing listens on, a bucket that does not exist, a port in use.
 */
describe('a start that cannot work stops and says why', () => {
  let s3: TestS3Server;
  const dirs: string[] = [];
  const dataDir = () => {
    const d = mkdtempSync(join(tmpdir(), 'stemforge-start-'));
    dirs.push(d);
    return d;
  };
  beforeAll(async () => {
    s3 = await startS3Server('stemforge-start-checks');
  });
  afterAll(async () => {
    await s3?.close();
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });

  /** `serve` until it exits; it must exit non-zero within 60 s (the bound; the checks take seconds). */
  const failedStart = async (env: Record<string, string>) => {
    const run = await runStemforgeToExit(['serve'], {
      STEMFORGE_DATA_DIR: dataDir(),
      PORT: String(await freePort()),
      ...env,
    });
    expect(run.code, run.out).not.toBe(0);
    expect(run.code, run.out).not.toBeNull();
    expect(run.ms).toBeLessThan(60_000);
    return run.out;
  };

  test('an S3 endpoint nothing answers at: S3_ENDPOINT, not reachable', async () => {
    const out = await failedStart({ ...s3Settings(s3), S3_ENDPOINT: `http://127.0.0.1:${await freePort()}` });
    expect(out).toMatch(/S3_ENDPOINT: the S3 store at 127\.0\.0\.1:\d+ is not reachable \(ECONNREFUSED\)/);
  });

  test('a bucket that does not exist: S3_BUCKET', async () => {
    const out = await failedStart({ ...s3Settings(s3), S3_BUCKET: 'no-such-bucket' });
    expect(out).toMatch(/S3_BUCKET: the S3 store at 127\.0\.0\.1:\d+ has no bucket no-such-bucket/);
  });

  test('a malformed DATABASE_URL: named, its password never printed', async () => {
    const out = await failedStart({ DATABASE_URL: 'postgres://stemforge:hunter2@127.0.0.1:99999/db' });
    expect(out).toContain('DATABASE_URL is not a valid PostgreSQL URL');
    expect(out).not.toContain('hunter2');
  });

  test('a PostgreSQL nothing answers at: DATABASE_URL, not reachable', async () => {
    const port = await freePort();
    const out = await failedStart({ DATABASE_URL: `postgres://stemforge:hunter2@127.0.0.1:${port}/db` });
    expect(out).toContain(`DATABASE_URL: PostgreSQL at 127.0.0.1:${port} is not reachable (ECONNREFUSED)`);
    expect(out).not.toContain('hunter2');
  });

  test('scale-out with a Redis nothing answers at: REDIS_URL, not reachable', async () => {
    const database = `sf_start_${randomBytes(4).toString('hex')}`;
    const admin = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await admin.connect();
    await admin.query(`CREATE DATABASE ${database}`);
    try {
      const url = new URL(TEST_POSTGRES_URL);
      url.pathname = `/${database}`;
      const port = await freePort();
      const out = await failedStart({
        STEMFORGE_MODE: 'scale-out',
        DATABASE_URL: url.toString(),
        REDIS_URL: `redis://127.0.0.1:${port}`,
        STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
        ...s3Settings(s3),
      });
      expect(out).toContain(`REDIS_URL: Redis at 127.0.0.1:${port} is not reachable`);
    } finally {
      await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
      await admin.end();
    }
  });

  test('a store without ListMultipartUploads: one warning naming the store and the call, and the start goes on', async () => {
    const partial = await startS3Server('stemforge-no-listing', { withoutMultipartListing: true });
    try {
      const serve = await startStemforgeProcess(
        ['serve'],
        { STEMFORGE_DATA_DIR: dataDir(), PORT: String(await freePort()), LOG_LEVEL: 'warn', ...s3Settings(partial) },
        'Stemforge listening',
      );
      await serve.stop();
      const warnings = serve
        .out()
        .split('\n')
        .filter((l) => l.includes('ListMultipartUploads'));
      expect(warnings).toHaveLength(1);
      expect(JSON.parse(warnings[0]!)).toMatchObject({
        level: 40,
        store: expect.stringMatching(/^the S3 store at http:\/\/127\.0\.0\.1:\d+$/),
        call: 'ListMultipartUploads',
        msg: expect.stringContaining('A parameter you provided implies functionality that is not implemented'),
      });
    } finally {
      await partial.close();
    }
  });

  test('a port in use: PORT/HOST named, no account created, no key printed', async () => {
    const busy: Server = createServer();
    const port = await freePort();
    await new Promise<void>((r) => busy.listen(port, '127.0.0.1', () => r()));
    try {
      const dir = dataDir();
      const out = await failedStart({ STEMFORGE_DATA_DIR: dir, PORT: String(port) });
      expect(out).toContain(`PORT/HOST: 127.0.0.1:${port} is in use (EADDRINUSE)`);
      expect(out).not.toMatch(/API key|Password/);
      const db = new BetterSqlite3(join(dir, 'stemforge.db'), { readonly: true });
      try {
        expect(db.prepare('select count(*) as n from accounts').get()).toEqual({ n: 0 });
      } finally {
        db.close();
      }
    } finally {
      await new Promise((r) => busy.close(r));
    }
  });
});

describe('one embedded server per data folder', () => {
  test('the second start refuses, naming the holder, and leaves its work folders alone; a killed holder frees it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'stemforge-lock-'));
    try {
      const first = await startServe({ STEMFORGE_DATA_DIR: dir, PORT: String(await freePort()) });
      // A work folder as a running job of the first server has it.
      const work = join(dir, 'work', 'job_0lockedtest0000000000-inference-1-0');
      mkdirSync(work, { recursive: true });

      const second = await runStemforgeToExit(['serve'], { STEMFORGE_DATA_DIR: dir, PORT: String(await freePort()) });
      expect(second.code, second.out).not.toBe(0);
      expect(second.out).toMatch(
        new RegExp(`in use by another Stemforge server \\(pid ${first.child.pid} on \\S+, since \\d{4}-\\d\\d-\\d\\dT`),
      );
      expect(existsSync(work)).toBe(true);

      // kill -9 leaves the lock file behind; the lock itself died with the process.
      first.child.kill('SIGKILL');
      await new Promise((r) => first.child.once('exit', r));
      const third = await startServe({ STEMFORGE_DATA_DIR: dir, PORT: String(await freePort()) });
      third.child.kill('SIGTERM');
      await new Promise((r) => third.child.once('exit', r));
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
