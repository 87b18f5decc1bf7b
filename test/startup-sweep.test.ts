import { afterAll, afterEach, beforeAll, describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, startTestServer, type TestServer } from './helpers/server.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { pendingJobRow } from './helpers/job-row.ts';
import { insertJob } from '../src/store/jobs.ts';
import { startServe } from './helpers/stemforge-process.ts';
import { sweepStartupLeftovers } from '../src/startup-sweep.ts';
import { holdPath } from '../src/storage/held-paths.ts';
import { createS3Client, S3BlobStore } from '../src/storage/s3-store.ts';
import { startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { CreateMultipartUploadCommand, UploadPartCommand, type S3Client } from '@aws-sdk/client-s3';
import { Readable } from 'node:stream';
import type { BlobStore } from '../src/storage/blob-store.ts';

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

const partFiles = async (dataDir: string) =>
  (await readdir(join(dataDir, 'tmp')).catch(() => [] as string[])).filter((n) => n.endsWith('.part'));

describe('start-up sweep after kill -9 (real processes, embedded)', () => {
  let dataDir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stemforge-sweep-'));
  });
  afterEach(() => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
  });
  afterAll(async () => {
    await rm(dataDir, { recursive: true, force: true });
  });

  test('a half-received upload body and a job work folder left by a killed process are removed on the next start', async () => {
    const port = await freePort();
    const env = { STEMFORGE_DATA_DIR: dataDir, PORT: String(port), HOST: '127.0.0.1' };
    const first = await startServe(env);
    child = first.child;
    const api = `http://127.0.0.1:${port}/v1`;
    const grant: any = await (
      await fetch(`${api}/upload`, {
        method: 'POST',
        headers: { authorization: `Bearer ${first.key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'song.wav' }),
      })
    ).json();
    // A PUT that sends 256 KiB and then never finishes: the body sits in data/tmp/in_*.part.
    const put = fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: new ReadableStream({
        start(c) {
          c.enqueue(new Uint8Array(256 * 1024));
        },
      }),
      duplex: 'half',
    } as RequestInit);
    put.catch(() => undefined);
    await until(async () => (await partFiles(dataDir)).length === 1);
    // What an attempt's work folder holds mid-job (run-job.ts names it <job>-<stage>-<attempt>-<crashes>).
    const work = join(dataDir, 'work', 'job_0mfz1q2ab000AbCdEfGhIjKl-inference-1-0');
    // A copy into the disk store cut by the kill (blobs/tmp/<uuid>, with its type sidecar).
    const blobTmp = join(dataDir, 'blobs', 'tmp');
    await mkdir(blobTmp, { recursive: true });
    await writeFile(join(blobTmp, '6f1c1b84-0d7e-4d8e-9a55-3c1f3f0b2a11'), Buffer.alloc(4096));
    await writeFile(join(blobTmp, '6f1c1b84-0d7e-4d8e-9a55-3c1f3f0b2a11.meta'), '{}');
    await mkdir(join(work, 'out'), { recursive: true });
    await writeFile(join(work, 'input'), Buffer.alloc(1024));
    // Not ours to remove: names the service never creates.
    await writeFile(join(dataDir, 'tmp', 'notes.txt'), 'keep');
    await mkdir(join(dataDir, 'work', 'operator-scratch'), { recursive: true });

    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    expect(await partFiles(dataDir)).toHaveLength(1);
    expect(existsSync(work)).toBe(true);

    child = (await startServe(env)).child;
    expect(await partFiles(dataDir)).toHaveLength(0);
    expect(existsSync(work)).toBe(false);
    expect(await readdir(blobTmp)).toEqual([]);
    expect(existsSync(join(dataDir, 'tmp', 'notes.txt'))).toBe(true);
    expect(existsSync(join(dataDir, 'work', 'operator-scratch'))).toBe(true);
  });
});

describe('start-up sweep rules', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s?.close();
  });

  const makeWorkDir = async (name: string) => {
    await mkdir(join(s.dataDir, 'work', name), { recursive: true });
    await writeFile(join(s.dataDir, 'work', name, 'input'), 'x');
    return join(s.dataDir, 'work', name);
  };
  const makeTemp = async (name: string, ageMs: number) => {
    await mkdir(join(s.dataDir, 'tmp'), { recursive: true });
    const path = join(s.dataDir, 'tmp', name);
    await writeFile(path, 'x');
    const t = new Date(Date.now() - ageMs);
    await utimes(path, t, t);
    return path;
  };

  test('issue 41: output folders of jobs that no longer exist are removed from the disk store', async () => {
    await expectOrphanFoldersSwept(s, s.rt.blobs);
  });

  test('what this process holds (a running job’s folder, a body being received, a blob being copied) is kept', async () => {
    const running = await makeWorkDir('job_0mfz1q2ab001Running0000-inference-2-0');
    const orphan = await makeWorkDir('job_0mfz1q2ab002Orphan00000-download-1-0');
    const receiving = await makeTemp('in_0mfz1q2ab00aReceiving0000.part', 0);
    const blobTmp = join(s.dataDir, 'blobs', 'tmp');
    await mkdir(blobTmp, { recursive: true });
    const copying = join(blobTmp, 'aaaaaaaa-0000-4000-8000-000000000001');
    const halfCopied = join(blobTmp, 'aaaaaaaa-0000-4000-8000-000000000002');
    await writeFile(copying, 'x');
    await writeFile(halfCopied, 'x');
    const releases = [holdPath(running), holdPath(receiving), holdPath(copying)];
    const r = await sweepStartupLeftovers(s.rt, { mode: 'embedded' });
    expect(r.workDirs).toEqual(['job_0mfz1q2ab002Orphan00000-download-1-0']);
    expect(r.tempFiles).toEqual([]);
    expect(r.unfinishedWrites.map((w) => w.id)).toEqual(['aaaaaaaa-0000-4000-8000-000000000002']);
    expect([existsSync(running), existsSync(receiving), existsSync(copying)]).toEqual([true, true, true]);
    expect([existsSync(orphan), existsSync(halfCopied)]).toEqual([false, false]);
    // Released (the request or the job ended without cleaning up): the next sweep takes them.
    for (const release of releases) release();
    const again = await sweepStartupLeftovers(s.rt, { mode: 'embedded' });
    expect(again.workDirs).toEqual(['job_0mfz1q2ab001Running0000-inference-2-0']);
    expect(again.tempFiles).toEqual(['in_0mfz1q2ab00aReceiving0000.part']);
    expect(again.unfinishedWrites.map((w) => w.id)).toEqual(['aaaaaaaa-0000-4000-8000-000000000001']);
  });

  test('scale-out: a dead worker’s folder of a job running again elsewhere is swept; the live attempt’s is kept', async () => {
    const user = await s.newAccount();
    const id = (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    // Run 1 of attempt 1 died; another worker took the job over (one crash) and holds a live lease.
    await s.rt.db
      .updateTable('jobs')
      .set({
        status: 'PROCESSING',
        attempts: 1,
        crashes: 1,
        lease_owner: 'w_other',
        lease_expires_at: new Date(Date.now() + 30_000).toISOString(),
      })
      .where('id', '=', id)
      .execute();
    const deadDir = await makeWorkDir(`${id}-inference-1-0`);
    const liveDir = await makeWorkDir(`${id}-inference-1-1`);
    const r = await sweepStartupLeftovers(s.rt, { mode: 'scale-out' });
    expect(r.workDirs).toEqual([`${id}-inference-1-0`]);
    expect([existsSync(deadDir), existsSync(liveDir)]).toEqual([false, true]);
    // Once the live lease runs out too (that worker died as well), its folder goes.
    const later = await sweepStartupLeftovers(s.rt, { mode: 'scale-out', now: new Date(Date.now() + 60_000) });
    expect(later.workDirs).toEqual([`${id}-inference-1-1`]);
  });

  test('scale-out: a folder whose job holds a live lease elsewhere, and a temp file written to lately, are kept', async () => {
    const user = await s.newAccount();
    const live = (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    const dead = (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    const lease = (id: string, expires: number) =>
      s.rt.db
        .updateTable('jobs')
        .set({ status: 'PROCESSING', lease_owner: 'w_other', lease_expires_at: new Date(expires).toISOString() })
        .where('id', '=', id)
        .execute();
    await lease(live, Date.now() + 30_000);
    await lease(dead, Date.now() - 30_000);
    const liveDir = await makeWorkDir(`${live}-inference-1`);
    const deadDir = await makeWorkDir(`${dead}-inference-1`);
    const fresh = await makeTemp('in_0mfz1q2ab003Fresh000000.part', 5_000);
    const stale = await makeTemp('src_0mfz1q2ab004Stale000000.part', 2 * 3600_000);

    const r = await sweepStartupLeftovers(s.rt, { mode: 'scale-out' });
    expect(r.workDirs).toEqual([`${dead}-inference-1`]);
    expect(r.tempFiles).toEqual(['src_0mfz1q2ab004Stale000000.part']);
    expect(existsSync(liveDir)).toBe(true);
    expect(existsSync(deadDir)).toBe(false);
    expect(existsSync(fresh)).toBe(true);
    expect(existsSync(stale)).toBe(false);

    // Embedded: this process alone owns the folder, so everything of ours left there is an orphan.
    const all = await sweepStartupLeftovers(s.rt, { mode: 'embedded' });
    expect(all.workDirs).toEqual([`${live}-inference-1`]);
    expect(all.tempFiles).toEqual(['in_0mfz1q2ab003Fresh000000.part']);
  });
  test('checkpoints stay while their job may still run (waiting or running anywhere), and go once it is over', async () => {
    const user = await s.newAccount();
    const over = (await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' })).job.id;
    const waiting = pendingJobRow(user.id);
    const running = pendingJobRow(user.id, {
      status: 'PROCESSING',
      lease_owner: 'w_other',
      lease_expires_at: new Date(Date.now() - 60_000).toISOString(), // its worker died: it runs again
    });
    for (const row of [waiting, running]) await insertJob(s.rt.db, row);
    const makeCheckpoint = async (name: string) => {
      await mkdir(join(s.dataDir, 'checkpoints', name), { recursive: true });
      await writeFile(join(s.dataDir, 'checkpoints', name, 'state'), 'x');
    };
    const names = [
      `${over}-inference`,
      `${waiting.id}-inference`,
      `${running.id}-inference`,
      'job_0mfz1q2ab009Deleted00000-inference', // its job is gone
    ];
    for (const name of names) await makeCheckpoint(name);
    await mkdir(join(s.dataDir, 'checkpoints', 'operator-notes'), { recursive: true });
    for (const mode of ['scale-out', 'embedded'] as const) {
      const r = await sweepStartupLeftovers(s.rt, { mode });
      expect(r.checkpoints.sort(), mode).toEqual(mode === 'scale-out' ? [names[0], names[3]].sort() : []);
    }
    expect((await readdir(join(s.dataDir, 'checkpoints'))).sort()).toEqual(
      [names[1], names[2], 'operator-notes'].sort(),
    );
  });
});

/** Issue 41: a job's files follow its row, on disk and in S3. */
async function expectOrphanFoldersSwept(s: TestServer, blobs: BlobStore): Promise<void> {
  const user = await s.newAccount();
  const { job } = await commitFinishedJob({ ...s.rt, blobs: blobs }, user.id, {
    outcome: 'COMPLETED',
    outputs: { vocals: Buffer.from('kept') },
  });
  // What a worker that raced a cancel and a delete wrote, and what a failed deletion left.
  const ghost = 'job_0mfz1q2ab00gGhost000000';
  await blobs.put(`jobs/${ghost}/vocals.mp3`, Readable.from([Buffer.from('x')]), { contentType: 'audio/mpeg' });
  await blobs.put(`jobs/${ghost}/peaks.json`, Readable.from([Buffer.from('{}')]), { contentType: 'application/json' });
  const r = await sweepStartupLeftovers({ ...s.rt, blobs: blobs }, { mode: 'scale-out' });
  expect(r.orphanJobFolders).toEqual([ghost]);
  expect(await blobs.listFolders('jobs/')).toEqual([job.id]);
  expect(await blobs.stat(`jobs/${job.id}/vocals.mp3`)).not.toBeNull();
}

describe('orphan sweep of S3 multipart uploads (real S3 protocol: the test S3 server)', () => {
  let s: TestServer;
  let s3: TestS3Server;
  let client: S3Client;
  let store: S3BlobStore;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
    s3 = await startS3Server();
    client = createS3Client({
      bucket: s3.bucket,
      region: s3.region,
      endpoint: s3.endpoint,
      accessKeyId: s3.accessKeyId,
      secretAccessKey: s3.secretAccessKey,
      forcePathStyle: true,
    });
    store = new S3BlobStore({ client, bucket: s3.bucket, endpoint: s3.endpoint });
  });
  afterAll(async () => {
    await store?.close();
    await s3?.close();
    await s?.close();
  });

  /** What a worker killed mid-upload leaves: a multipart upload begun, one part sent, never completed. */
  const openUpload = async (key: string) => {
    const { UploadId } = await client.send(new CreateMultipartUploadCommand({ Bucket: s3.bucket, Key: key }));
    await client.send(
      new UploadPartCommand({ Bucket: s3.bucket, Key: key, UploadId, PartNumber: 1, Body: Buffer.alloc(64 * 1024) }),
    );
    return UploadId!;
  };
  const lease = (id: string, set: { expires: number; claimedAt: number }) =>
    s.rt.db
      .updateTable('jobs')
      .set({
        status: 'PROCESSING',
        lease_owner: 'w_other',
        lease_expires_at: new Date(set.expires).toISOString(),
        claimed_at: new Date(set.claimedAt).toISOString(),
      })
      .where('id', '=', id)
      .execute();

  test('issue 41: output folders of jobs that no longer exist are removed from S3', async () => {
    await expectOrphanFoldersSwept(s, store);
  });

  test('uploads of dead workers are aborted; those a live lease or this process owns, and recent others, are kept', async () => {
    const user = await s.newAccount();
    const job = async () => (await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).job.id;
    const [dead, live, retaken] = [await job(), await job(), await job()];
    const now = Date.now();
    await lease(dead, { expires: now - 1000, claimedAt: now - 60_000 });
    await lease(live, { expires: now + 30_000, claimedAt: now - 60_000 });
    const ids = {
      dead: await openUpload(`jobs/${dead}/vocals.wav`),
      live: await openUpload(`jobs/${live}/vocals.wav`),
      retaken: await openUpload(`jobs/${retaken}/drums.wav`),
      upload: await openUpload(`uploads/${user.id}/upl_0mfz1q2ab00cUpload00000/source`),
      mine: await openUpload(`jobs/${dead}/bass.wav`),
    };
    // The retaken job's upload began before its current (live) claim: a dead worker's.
    await lease(retaken, { expires: now + 30_000, claimedAt: Date.now() + 10_000 });
    const release = holdPath(`s3://${s3.bucket}/jobs/${dead}/bass.wav`); // a put of this process under way
    expect((await s3.openMultipartUploads()).sort()).toEqual(Object.values(ids).sort());

    const r = await sweepStartupLeftovers({ ...s.rt, blobs: store }, { mode: 'scale-out' });
    expect(r.unfinishedWrites.map((w) => w.id).sort()).toEqual([ids.dead, ids.retaken].sort());
    expect((await s3.openMultipartUploads()).sort()).toEqual([ids.live, ids.upload, ids.mine].sort());

    // An hour on, the API upload nobody finished is an orphan too; the live lease (renewed) still owns its upload.
    await lease(live, { expires: now + 2 * 3600_000, claimedAt: now - 60_000 });
    const later = await sweepStartupLeftovers(
      { ...s.rt, blobs: store },
      { mode: 'scale-out', now: new Date(now + 3600_000 + 60_000) },
    );
    expect(later.unfinishedWrites.map((w) => w.id)).toEqual([ids.upload]);

    // Embedded: this process is the only writer, so everything it does not hold is aborted.
    const all = await sweepStartupLeftovers({ ...s.rt, blobs: store }, { mode: 'embedded' });
    expect(all.unfinishedWrites.map((w) => w.id)).toEqual([ids.live]);
    expect(await s3.openMultipartUploads()).toEqual([ids.mine]);
    release();
    await sweepStartupLeftovers({ ...s.rt, blobs: store }, { mode: 'embedded' });
    expect(await s3.openMultipartUploads()).toEqual([]);
  });
});
