import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { embeddedServer } from './helpers/embedded-server.ts';
import { apiClient } from './helpers/api-client.ts';
import { printedApiKey, type StemforgeProcess } from './helpers/stemforge-process.ts';
import { startScaleOut, type ScaleOut } from './helpers/scale-out.ts';
import { checkOutPreviousRelease, PREVIOUS_RELEASE } from './helpers/previous-release.ts';
import { sharedPath } from '../support/shared.ts';

/**
 * Issue 40, upgrades that mix (docs/upgrades.md): the previous release's own code, checked out from
 * git, runs against this release's schema and rows, and this release against the previous one's.
 * - Embedded (SQLite), one process at a time: the old release creates a job, the new one migrates and
 *   runs it, the new one creates a job, the old one (a rollback) starts on the migrated database and
 *   runs it, and each reads every job.
 * - Scale-out (PostgreSQL, Redis, S3), both releases at once as in a rolling upgrade: an old API and
 *   a new worker, then a new API and an old worker started after the migration.
 * A job is read through both releases' APIs (GET /v1/jobs, /v1/jobs/{id}) and must read the same.
 */
const CLIP = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
const JOB = { outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' };

let work: string;
let old: string;
beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'stemforge-upgrade-'));
  const release = checkOutPreviousRelease(work);
  old = release.root;
  if (!release.sameDependencies) console.warn(`${PREVIOUS_RELEASE.tag} runs on this checkout's dependencies`);
});
afterAll(() => rm(work, { recursive: true, force: true }));

/** The API at `base` with the admin's key, for the jobs of this test. */
function client(base: string, key: string) {
  const c = apiClient(base, key);
  return {
    ...c,
    createJob: () => c.createJob(CLIP, JOB),
    async list(): Promise<any[]> {
      const res = await c.api('/v1/jobs');
      expect(res.status, `GET /v1/jobs at ${base}`).toBe(200);
      return ((await res.json()) as { jobs: any[] }).jobs;
    },
    async completed(id: string): Promise<any> {
      const job = await c.ended(id);
      expect(job.errorMessage ?? null).toBeNull();
      expect(job.status).toBe('COMPLETED');
      return job;
    },
  };
}

/**
 * A job as one release's API shows it, less its links (each process signs its own, with its expiry), once its
 * outputs were downloaded and the list was seen to hold it.
 */
async function view(c: ReturnType<typeof client>, id: string): Promise<any> {
  const job = await c.job(id);
  for (const { url } of Object.values<any>(job.outputs ?? {})) expect((await fetch(url)).status).toBe(200);
  expect((await c.list()).map((j) => j.id)).toContain(id);
  const outputs = job.outputs && Object.entries<any>(job.outputs).map(([k, { url, expiresAt, ...o }]) => [k, o]);
  return { ...job, outputs: outputs && Object.fromEntries(outputs) };
}

describe(`rolling upgrade from ${PREVIOUS_RELEASE.tag}, embedded (SQLite): upgrade, then roll back`, () => {
  const running: StemforgeProcess[] = [];
  afterAll(async () => {
    for (const p of running) await p.stop();
  });

  test('each release runs and reads the jobs of the other, and the old one starts on the migrated database', async () => {
    const embedded = await embeddedServer({}, join(work, 'embedded'));
    const base = embedded.base;
    const serve = async (root: string | undefined, workers: boolean) => {
      const p = await embedded.start({ root, workers });
      running.push(p);
      return p;
    };
    // 1. The old release, first start: its account; a job it accepts but does not run.
    const first = await serve(old, false);
    const key = printedApiKey(first.out())!;
    expect(key).toBeTruthy();
    const older = client(base, key);
    const fromOld = await older.createJob();
    await first.stop();
    // 2. The new release migrates, runs the old release's job, and accepts one of its own.
    const upgraded = await serve(undefined, true);
    const newer = client(base, key);
    await newer.completed(fromOld);
    await upgraded.stop();
    const accepting = await serve(undefined, false);
    const fromNew = await newer.createJob();
    await accepting.stop();
    // 3. Rolled back: the old release starts on the migrated database and runs the new one's job.
    const rolledBack = await serve(old, true);
    await older.completed(fromNew);
    const seenByOld = [await view(older, fromOld), await view(older, fromNew)];
    await rolledBack.stop();
    // 4. Forward again: the new release shows both as the old one does (every field the old one has).
    await serve(undefined, false);
    expect([await view(newer, fromOld), await view(newer, fromNew)]).toMatchObject(seenByOld);
  }, 900_000);
});

describe(`rolling upgrade from ${PREVIOUS_RELEASE.tag}, scale-out (PostgreSQL, Redis, S3): both at once`, () => {
  let d: ScaleOut;
  afterAll(async () => {
    await d?.close();
  });

  test('an old API with a new worker, then a new API with an old worker started after the migration', async () => {
    // The rolling upgrade starts: the old API process is up, the first new worker migrates.
    d = await startScaleOut('upgrade', {}, {}, { apiRoot: old });
    const key = d.key()!;
    const older = client(d.base, key);
    const fromOld = await older.createJob();
    await older.completed(fromOld); // run by the new worker
    // A new API process joins; the new worker goes and an old one (a restarted old pod) starts on the
    // migrated database.
    const { base } = await d.startApi();
    const newer = client(base, key);
    await d.worker.stop();
    await d.startWorker({}, old);
    const fromNew = await newer.createJob();
    await newer.completed(fromNew); // run by the old worker
    for (const id of [fromOld, fromNew]) expect(await view(newer, id)).toMatchObject(await view(older, id));
  }, 900_000);
});
