import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { waitForJob } from './helpers/jobs.ts';
import { makeTone } from './helpers/audio.ts';
import { mp3WithLyingXing } from './helpers/hostile-audio.ts';
import { sharedPath } from '../support/shared.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { decodeAudio } from '../src/audio/decode.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { findUpload } from '../src/store/uploads.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';

const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const MiB = 1024 * 1024;

/** Seconds of audio a decoder gets out of a file (44.1 kHz stereo). */
async function decodedSeconds(path: string): Promise<number> {
  let frames = 0;
  for await (const chunk of decodeAudio(path)) frames += chunk.length / 2;
  return frames / 44_100;
}

/**
 * Issue 30, item 3: in scale-out with an S3 store, upload grants that name the file's size are
 * presigned PUTs to the bucket with that size signed, and the API never carries the file; the worker
 * probes and measures it before anything is charged or separated. Issue 41: a grant without a size
 * is the API's own route (bounded by the size limit), and a file a job refuses is deleted at once. The service runs for real here: PostgreSQL, BullMQ on Redis, S3 (s3rver on
 * loopback), the API on its own HTTP server and the workers beside it.
 */
describe('uploads straight to S3 in scale-out', () => {
  let s3: TestS3Server;
  let s: TestServer;
  let workers: Workers;
  let dir: string;
  /** Every socket the API's HTTP server accepted: their bytesRead is what reached the API. */
  const sockets: Socket[] = [];
  const apiBytesRead = () => sockets.reduce((sum, socket) => sum + socket.bytesRead, 0);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'stemforge-direct-'));
    s3 = await startS3Server('stemforge-direct');
    s = await startTestServer('postgres', {
      STEMFORGE_MODE: 'scale-out',
      REDIS_URL,
      REDIS_PREFIX: `sftest-${randomBytes(4).toString('hex')}`,
      ...s3Settings(s3),
      STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      MIN_DURATION_SECONDS: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    s.app.server.on('connection', (socket: Socket) => sockets.push(socket));
    workers = await startWorkers(s.rt);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
    await s3?.close();
    await rm(dir, { recursive: true, force: true });
  });

  const grant = async (key: string, json: Record<string, unknown>) => {
    const res = await s.api('/v1/upload', { key, method: 'POST', json });
    return { status: res.status, body: (await res.json()) as any };
  };
  const putTo = (url: string, contentType: string, body: Buffer) =>
    fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body });
  const createJob = async (key: string, uploadKey: string) => {
    const res = await s.api('/v1/jobs', {
      key,
      method: 'POST',
      json: { uploadKey, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' },
    });
    return { status: res.status, body: (await res.json()) as any };
  };

  test('the grant points at the bucket, the PUT goes there, and a 40 MB upload moves no bytes through the API', async () => {
    const user = await s.newAccount(600);
    // 40 MB that is not audio: the worker must refuse it before any separation.
    const bytes = Buffer.alloc(40 * MiB, 'this is not audio, only text pretending to be a song. ');
    const { body: g } = await grant(user.key, { filename: 'big.mp3', fileSizeBytes: bytes.length });
    expect(g.uploadUrl.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/`)).toBe(true);
    expect(new URL(g.uploadUrl).searchParams.get('X-Amz-Expires')).toBe('900');
    expect(g.contentType).toBe('audio/mpeg');
    const upload = await findUpload(s.rt.db, g.uploadKey);
    expect(upload?.status).toBe('direct');

    const before = apiBytesRead();
    const put = await putTo(g.uploadUrl, 'audio/mpeg', bytes);
    expect(put.status).toBe(200);
    expect(put.headers.get('etag')).toBeTruthy();
    const balance = await getBalanceSeconds(s.rt.db, user.id);
    const created = await createJob(user.key, g.uploadKey);
    expect(created.status).toBe(201);
    // Unmeasured: an estimate is held (40 MB at 128 kbit/s is past the limit, so the balance).
    expect(created.body.creditsRequired).toBe(600);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(balance - 600);
    const { job, progress } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
    expect(job.status).toBe('FAILED');
    expect(job.errorDetails.code).toBe('UNSUPPORTED_FORMAT');
    // Refused while downloading: no model loaded, nothing separated.
    expect(Math.max(...progress)).toBeLessThan(5);
    expect(job.errorMessage).toContain('not supported audio');
    expect(job.errorMessage).not.toContain(s.dataDir);
    expect(job.creditsCharged).toBe(0);
    expect(job.outputs).toBeNull();
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(balance);
    // Issue 41: a file no job can use is not kept for the upload's retention: it is gone now.
    expect(await s.rt.blobs.stat(upload!.storage_key)).toBeNull();
    // Grant, job creation and polling together: a few kB of JSON reached the API, not the file.
    const throughApi = apiBytesRead() - before;
    expect(throughApi).toBeLessThan(256 * 1024);

    // The counter does see a file that does go through the API (the one-request upload).
    const form = new FormData();
    form.append('file', new Blob([bytes]), 'big.mp3');
    const beforeForm = apiBytesRead();
    const viaApi = await s.api('/v1/files/upload', { key: user.key, method: 'POST', body: form });
    expect(viaApi.status).toBe(400);
    expect(apiBytesRead() - beforeForm).toBeGreaterThan(40 * MiB);
  });

  test('a 14 s MP3 whose Xing header claims 7 s is billed 14 s, and no output is longer than what was billed', async () => {
    const path = await mp3WithLyingXing(join(dir, 'xing.mp3'), 14, 7);
    expect((await probeAudio(path)).durationSeconds).toBeLessThan(7.1);
    const decoded = await decodedSeconds(path);
    expect(decoded).toBeGreaterThan(13.9);

    const user = await s.newAccount(300);
    const file = await readFile(path);
    const { body: g } = await grant(user.key, { filename: 'xing.mp3', fileSizeBytes: file.length });
    expect((await putTo(g.uploadUrl, g.contentType, file)).status).toBe(200);
    const created = await createJob(user.key, g.uploadKey);
    expect(created.status).toBe(201);
    // The hold is an estimate from the size (15 here), which the worker settles to the decoded 14.
    expect(created.body.creditsRequired).toBeGreaterThan(0);
    expect(created.body.creditsRequired).not.toBe(14);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.input.durationSeconds).toBe(14);
    expect(job.creditsCharged).toBe(14);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 14);
    const out = join(dir, 'vocals.wav');
    await writeFile(out, Buffer.from(await (await fetch(job.outputs.vocals.url)).arrayBuffer()));
    const seconds = await decodedSeconds(out);
    expect(seconds).toBeGreaterThan(13.9);
    expect(seconds).toBeLessThanOrEqual(job.creditsCharged);
  });

  test('a file longer than the balance covers fails before separation with INSUFFICIENT_CREDITS, credits released', async () => {
    const path = await makeTone(join(dir, 'eight.mp3'), 8);
    const user = await s.newAccount(5);
    const file = await readFile(path);
    const { body: g } = await grant(user.key, { filename: 'eight.mp3', fileSizeBytes: file.length });
    expect((await putTo(g.uploadUrl, g.contentType, file)).status).toBe(200);
    const created = await createJob(user.key, g.uploadKey);
    expect(created.status).toBe(201);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
    expect(job.status).toBe('FAILED');
    expect(job.errorDetails.code).toBe('INSUFFICIENT_CREDITS');
    expect(job.errorMessage).toContain('needs 8 credits');
    expect(job.creditsCharged).toBe(0);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(5);
  });

  test('a balance below the shortest acceptable file is refused at creation with 402; nothing is held', async () => {
    const path = await makeTone(join(dir, 'short.mp3'), 3);
    const user = await s.newAccount(0);
    const file = await readFile(path);
    const { body: g } = await grant(user.key, { filename: 'short.mp3', fileSizeBytes: file.length });
    expect((await putTo(g.uploadUrl, g.contentType, file)).status).toBe(200);
    const created = await createJob(user.key, g.uploadKey);
    expect(created.status).toBe(402);
    expect(created.body.error.code).toBe('INSUFFICIENT_CREDITS');
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(0);
  });

  test('voice cleaning from a direct upload is measured by the worker too, and charged the decoded length', async () => {
    const path = await makeTone(join(dir, 'speech.wav'), 3, { channels: 1 });
    const user = await s.newAccount(300);
    const file = await readFile(path);
    const { body: g } = await grant(user.key, { filename: 'speech.wav', fileSizeBytes: file.length });
    expect((await putTo(g.uploadUrl, g.contentType, file)).status).toBe(200);
    const res = await s.api('/v1/denoise-jobs', {
      key: user.key,
      method: 'POST',
      // The declared length is never billed.
      json: { inputFileName: 'speech.wav', inputFilePath: g.uploadKey, inputFileSize: 1, durationSeconds: 1 },
    });
    expect(res.status).toBe(200);
    const created: any = await res.json();
    const { job } = await waitForJob(s, user.key, `/v1/denoise-jobs/${created.jobId}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(3);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(297);
  });

  test('the store refuses a PUT with another Content-Type or size than granted; the job then finds no file', async () => {
    const user = await s.newAccount(300);
    const { body: g } = await grant(user.key, { filename: 'song.mp3', fileSizeBytes: 6 });
    const wrongType = await putTo(g.uploadUrl, 'text/html', Buffer.from('<html>'));
    expect(wrongType.status).toBe(403);
    const created = await createJob(user.key, g.uploadKey);
    expect(created.status).toBe(400);
    expect(created.body.error.code).toBe('UPLOAD_NOT_FOUND');
    expect(created.body.error.message).toContain('has no file yet');

    // With the size in the request, it is bound into the signature, and checked against the limit.
    const sized = await grant(user.key, { filename: 'song.mp3', fileSizeBytes: 10 });
    expect(new URL(sized.body.uploadUrl).searchParams.get('X-Amz-SignedHeaders')).toContain('content-length');
    expect((await putTo(sized.body.uploadUrl, 'audio/mpeg', Buffer.alloc(11))).status).toBe(403);
    const tooBig = await grant(user.key, { filename: 'song.mp3', fileSizeBytes: 51 * MiB });
    expect(tooBig.status).toBe(400);
    expect(tooBig.body.error.code).toBe('FILE_TOO_LARGE');
  });

  test("the API's own upload route refuses a direct grant", async () => {
    const user = await s.newAccount(300);
    const { body: g } = await grant(user.key, { filename: 'song.mp3', fileSizeBytes: 1000 });
    const res = await fetch(`${s.base}/v1/uploads/${g.uploadKey}?exp=9999999999&sig=00`, {
      method: 'PUT',
      headers: { 'content-type': 'audio/mpeg' },
      body: Buffer.from('x'),
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as any).error.code).toBe('INVALID_SIGNATURE');
  });

  test('issue 41: a grant without a size is the API route; a 60 MB PUT through it is refused and nothing is stored', async () => {
    const user = await s.newAccount(300);
    const { body: g } = await grant(user.key, { filename: 'huge.mp3' });
    expect(g.uploadUrl.startsWith(`${s.base}/v1/uploads/${g.uploadKey}?`)).toBe(true);
    expect((await findUpload(s.rt.db, g.uploadKey))?.status).toBe('pending');
    const put = await putTo(g.uploadUrl, g.contentType, Buffer.alloc(60 * MiB, 1));
    expect(put.status).toBe(400);
    expect(((await put.json()) as any).error.code).toBe('FILE_TOO_LARGE');
    expect(await s.rt.blobs.listFolders(`uploads/${user.id}/`)).toEqual([]);
    // A file within the limit goes through the API, probed and measured as it arrives.
    const tone = await readFile(await makeTone(join(dir, 'ok.mp3'), 3));
    const { body: ok } = await grant(user.key, { filename: 'ok.mp3' });
    const stored = await putTo(ok.uploadUrl, ok.contentType, tone);
    expect(stored.status).toBe(200);
    expect(((await stored.json()) as any).durationSeconds).toBeGreaterThan(2.9);
  });

  test('issue 41: after a re-PUT the job reports the size of the file it measured', async () => {
    const first = await readFile(await makeTone(join(dir, 'first.mp3'), 3));
    const second = await readFile(await makeTone(join(dir, 'second.mp3'), 6));
    expect(second.length).not.toBe(first.length);
    const user = await s.newAccount(300);
    const { body: g } = await grant(user.key, { filename: 'first.mp3', fileSizeBytes: first.length });
    expect((await putTo(g.uploadUrl, g.contentType, first)).status).toBe(200);
    const source = (await findUpload(s.rt.db, g.uploadKey))!.storage_key;
    // The object is replaced after the job's creation and before the worker reads it (a re-PUT of an
    // older grant, or another size-less client): what the worker measures is what the job reports.
    const store = s.rt.blobs;
    const read = store.createReadStream.bind(store);
    let replaced = false;
    store.createReadStream = async (key, range) => {
      if (key === source && !replaced) {
        replaced = true;
        const { Readable } = await import('node:stream');
        await store.put(key, Readable.from([second]), { contentType: 'audio/mpeg' });
      }
      return read(key, range);
    };
    try {
      const created = await createJob(user.key, g.uploadKey);
      expect(created.status).toBe(201);
      expect(created.body.input.fileSizeBytes).toBe(first.length);
      const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
      expect(job.status).toBe('COMPLETED');
      expect(replaced).toBe(true);
      expect(job.input.fileSizeBytes).toBe(second.length);
      expect(job.input.durationSeconds).toBe(6);
      expect(job.creditsCharged).toBe(6);
    } finally {
      store.createReadStream = read;
    }
  });
});
