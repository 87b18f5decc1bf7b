import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { makeTone } from './helpers/audio.ts';
import { findUpload, insertUpload } from '../src/store/uploads.ts';
import { newUploadRow, uploadPrefix } from '../src/uploads/grant.ts';
import { sweepExpired } from '../src/worker/retention.ts';
import { publishUpload } from '../src/uploads/publish.ts';

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

async function storedBytes(s: TestServer, key: string): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of await s.rt.blobs.createReadStream(key)) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}

/** A request body that sends `head`, then waits for `release` before sending `tail`. */
function heldBody(head: Buffer, tail: Buffer, release: Promise<unknown>): ReadableStream<Uint8Array> {
  let step = 0;
  return new ReadableStream({
    async pull(controller) {
      if (step === 0) controller.enqueue(head);
      else if (step === 1) {
        await release;
        controller.enqueue(tail);
      } else controller.close();
      step++;
    },
  });
}

let dir: string;
let slow: Buffer;
let fast: Buffer;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stemforge-atomic-'));
  slow = await readFile(await makeTone(join(dir, 'slow.mp3'), 60));
  fast = await readFile(await makeTone(join(dir, 'fast.mp3'), 6));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const setups = [
  { name: 'SQLite + disk', start: async () => ({ s: await startTestServer('sqlite'), s3: undefined }) },
  {
    name: 'PostgreSQL + S3 (s3rver)',
    start: async () => {
      const s3 = await startS3Server();
      const s = await startTestServer('postgres', {
        ...s3Settings(s3),
      });
      return { s, s3 };
    },
  },
];

describe.each(setups)('two PUTs racing on one upload grant ($name)', ({ start }) => {
  let s: TestServer;
  let s3: TestS3Server | undefined;
  let user: { id: string; key: string };
  beforeAll(async () => {
    ({ s, s3 } = await start());
    user = await s.newAccount(300);
  });
  afterAll(async () => {
    await s?.close();
    await s3?.close();
  });

  const grant = async () =>
    (await (
      await s.api('/v1/upload', { key: user.key, method: 'POST', json: { filename: 'song.mp3' } })
    ).json()) as any;

  test('a slow PUT of 60 s and a fast PUT of 6 s: the fast one wins, and its bytes and 6 s are what is stored', async () => {
    const g = await grant();
    let fastDone!: (v: unknown) => void;
    const fastFinished = new Promise((r) => (fastDone = r));
    // The slow PUT starts first and has sent half of its body when the fast one starts; it
    // finishes only after the fast one has been answered.
    const half = Math.floor(slow.length / 2);
    const slowPut = fetch(g.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/mpeg' },
      body: heldBody(slow.subarray(0, half), slow.subarray(half), fastFinished),
      duplex: 'half',
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 300));
    const fastRes = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: fast });
    const fastBody: any = await fastRes.json();
    fastDone(null);
    const slowRes = await slowPut;
    const slowBody: any = await slowRes.json();

    expect(fastRes.status).toBe(200);
    expect(fastBody.durationSeconds).toBeGreaterThan(5.9);
    expect(fastBody.durationSeconds).toBeLessThan(6.1);
    expect(slowRes.status).toBe(409);
    expect(slowBody.error.code).toBe('UPLOAD_ALREADY_COMPLETED');

    const row = await findUpload(s.rt.db, g.uploadKey);
    expect(row?.status).toBe('uploaded');
    expect(row?.size_bytes).toBe(fast.length);
    expect(row?.duration_seconds).toBeCloseTo(fastBody.durationSeconds, 3);
    // The stored object is the winner's, byte for byte: the loser replaced nothing.
    expect(sha(await storedBytes(s, row!.storage_key))).toBe(sha(fast));

    // And the job is billed the 6 s that are stored.
    const job: any = await (
      await s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey: g.uploadKey } })
    ).json();
    expect(job.creditsRequired).toBe(6);

    if (!s3) {
      // The loser's private object was deleted: one object under the upload's folder on disk.
      const names = await readdir(join(s.dataDir, 'blobs', 'objects', 'uploads', user.id, g.uploadKey));
      expect(names).toEqual([row!.storage_key.split('/').pop()]);
    }
  });

  test('two publishes past every early check at once: one conditional update wins, the loser deletes its own object', async () => {
    const row = newUploadRow(user.id, 'song.mp3', { expiresAt: new Date(Date.now() + 60_000) });
    await insertUpload(s.rt.db, row);
    const files = [
      { path: join(dir, 'slow.mp3'), size: slow.length, durationSeconds: 60 },
      { path: join(dir, 'fast.mp3'), size: fast.length, durationSeconds: 6 },
    ];
    const results = await Promise.allSettled(files.map((f) => publishUpload(s.rt, row, f)));
    const won = results.findIndex((r) => r.status === 'fulfilled');
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const lost = results[1 - won] as PromiseRejectedResult;
    expect(lost.reason.code).toBe('UPLOAD_ALREADY_COMPLETED');
    const stored = await findUpload(s.rt.db, row.id);
    // Whatever won, the row's bytes, size and duration belong to the same file.
    expect(stored?.duration_seconds).toBe(files[won]!.durationSeconds);
    expect(stored?.size_bytes).toBe(files[won]!.size);
    expect(sha(await storedBytes(s, stored!.storage_key))).toBe(sha(won === 0 ? slow : fast));
    if (!s3) {
      const names = await readdir(join(s.dataDir, 'blobs', 'objects', 'uploads', user.id, row.id));
      expect(names).toEqual([stored!.storage_key.split('/').pop()]);
    }
  });

  test('a PUT cut off mid-body stores nothing and leaves the grant usable', async () => {
    const g = await grant();
    const abort = new AbortController();
    const cut = fetch(g.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/mpeg' },
      body: heldBody(slow.subarray(0, 100_000), slow.subarray(100_000), new Promise(() => undefined)),
      duplex: 'half',
      signal: abort.signal,
    } as RequestInit);
    await new Promise((r) => setTimeout(r, 500));
    abort.abort();
    await expect(cut).rejects.toThrow();
    await new Promise((r) => setTimeout(r, 300));
    expect((await findUpload(s.rt.db, g.uploadKey))?.status).toBe('pending');

    const res = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: fast });
    expect(res.status).toBe(200);
    const row = await findUpload(s.rt.db, g.uploadKey);
    expect(sha(await storedBytes(s, row!.storage_key))).toBe(sha(fast));
  });

  test('retention deletes an upload with any object a PUT cut off by a crash left beside it', async () => {
    const g = await grant();
    const res = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: fast });
    expect(res.status).toBe(200);
    const row = (await findUpload(s.rt.db, g.uploadKey))!;
    // A crash between storing a PUT's private object and the publishing update leaves this.
    const orphan = `${uploadPrefix(row)}source-crashed`;
    await s.rt.blobs.putFile(orphan, join(dir, 'slow.mp3'), { contentType: 'audio/mpeg' });
    await sweepExpired(s.rt, new Date(Date.now() + 48 * 3600_000));
    expect(await findUpload(s.rt.db, g.uploadKey)).toBeNull();
    expect(await s.rt.blobs.stat(row.storage_key)).toBeNull();
    expect(await s.rt.blobs.stat(orphan)).toBeNull();
  });
});
