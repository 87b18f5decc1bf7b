import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { waitForJob } from './helpers/jobs.ts';
import { makeTone } from './helpers/audio.ts';
import { sharedPath } from '../support/shared.ts';
import {
  flacWithLyingStreamInfo,
  m4aWithLyingDuration,
  mp3WithLyingXing,
  oggWithLyingGranule,
  truncatedMp3,
  wavWithLyingDataSize,
  wavWithUnknownCodec,
  webmWithLyingDuration,
} from './helpers/hostile-audio.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { decodeAudio } from '../src/audio/decode.ts';
import { findUpload } from '../src/store/uploads.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';

/** Seconds of audio the separation engine's decoder (44.1 kHz stereo) gets out of a file. */
async function engineSeconds(path: string): Promise<number> {
  let frames = 0;
  for await (const chunk of decodeAudio(path)) frames += chunk.length / 2;
  return frames / 44_100;
}

/** The signed-URL upload; returns the PUT's status and body. */
async function put(s: TestServer, key: string, path: string, filename: string) {
  const grant: any = await (await s.api('/v1/upload', { key, method: 'POST', json: { filename } })).json();
  const res = await fetch(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': grant.contentType },
    body: await readFile(path),
  });
  return { status: res.status, body: (await res.json()) as any, uploadKey: grant.uploadKey as string };
}

async function createJob(s: TestServer, key: string, body: Record<string, unknown>) {
  const res = await s.api('/v1/jobs', { key, method: 'POST', json: { quality: 'FAST', ...body } });
  return { status: res.status, body: (await res.json()) as any };
}

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'stemforge-billing-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('credits and limits follow the decoded length, not the container header', () => {
  let s: TestServer;
  let user: { id: string; key: string };
  beforeAll(async () => {
    // No workers: these jobs are only created (credits held), never run.
    s = await startTestServer('sqlite', { MIN_DURATION_SECONDS: '1', RATE_LIMIT_PER_MINUTE: '100000' });
    user = await s.newAccount(10_000);
  });
  afterAll(async () => {
    await s?.close();
  });

  const lying = [
    { name: 'MP3 with its Xing frame count edited', file: 'xing.mp3', make: mp3WithLyingXing },
    { name: 'FLAC with its STREAMINFO total samples edited', file: 'streaminfo.flac', make: flacWithLyingStreamInfo },
    { name: 'M4A/AAC with its mvhd and mdhd durations edited', file: 'mvhd.m4a', make: m4aWithLyingDuration },
    { name: 'WebM/Opus with its Duration element edited', file: 'duration.webm', make: webmWithLyingDuration },
    {
      name: 'Ogg/Opus with its last granule position edited',
      file: 'granule.opus',
      make: (p: string, a: number, b: number) => oggWithLyingGranule(p, a, b, 48_000),
    },
    {
      name: 'Ogg/Vorbis with its last granule position edited',
      file: 'granule.ogg',
      make: (p: string, a: number, b: number) => oggWithLyingGranule(p, a, b, 48_000),
    },
  ];

  test.each(lying)('$name: the header claims 6 s, 12 s decode, 12 credits are held', async (c) => {
    const path = await c.make(join(dir, c.file), 12, 6);
    // The lie works on the header reader (what billing used to trust)...
    expect((await probeAudio(path)).durationSeconds).toBeLessThan(6.1);
    // ...and not on the decoder, which is what the engines run.
    const decoded = await engineSeconds(path);
    expect(decoded).toBeGreaterThan(11.9);

    const up = await put(s, user.key, path, c.file);
    expect(up.status).toBe(200);
    expect(up.body.durationSeconds).toBeGreaterThan(11.9);
    expect(up.body.durationSeconds).toBeLessThan(12.1);
    const before = await getBalanceSeconds(s.rt.db, user.id);
    const job = await createJob(s, user.key, { uploadKey: up.uploadKey });
    expect(job.status).toBe(201);
    // Billed at least what the engine will decode, and not a whole second more.
    expect(job.body.creditsRequired).toBeGreaterThanOrEqual(decoded);
    expect(job.body.creditsRequired).toBeLessThan(decoded + 1);
    expect(job.body.input.durationSeconds).toBe(job.body.creditsRequired);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(before - job.body.creditsRequired);
  });

  test('a WAV whose data chunk claims 6 s of 12: decoders stop at 6 s too, so 6 are billed and 6 processed', async () => {
    const path = await wavWithLyingDataSize(join(dir, 'data.wav'), 12, 6);
    const decoded = await engineSeconds(path);
    expect(decoded).toBeCloseTo(6, 2);
    const up = await put(s, user.key, path, 'data.wav');
    expect(up.body.durationSeconds).toBeCloseTo(6, 2);
    const job = await createJob(s, user.key, { uploadKey: up.uploadKey });
    expect(job.body.creditsRequired).toBe(6);
  });

  test('a truncated MP3 (~1.28 s left of 7 s; its Xing frame still says 7) is billed 2, not 7', async () => {
    const path = await truncatedMp3(join(dir, 'truncated.mp3'), 7, 21_000);
    expect((await probeAudio(path)).durationSeconds).toBeGreaterThan(6.9);
    const decoded = await engineSeconds(path);
    expect(decoded).toBeGreaterThan(1.1);
    expect(decoded).toBeLessThan(1.4);
    const up = await put(s, user.key, path, 'truncated.mp3');
    expect(up.body.durationSeconds).toBeCloseTo(decoded, 1);
    const job = await createJob(s, user.key, { uploadKey: up.uploadKey });
    expect(job.body.creditsRequired).toBe(2);
  });

  test('a file whose header reads as 7 s of audio that no decoder can decode is refused, nothing stored', async () => {
    const path = await wavWithUnknownCodec(join(dir, 'unknown-codec.wav'), 7);
    // Before: ffprobe's 7 s were billed and the job failed in the worker.
    expect((await probeAudio(path)).durationSeconds).toBeCloseTo(7, 2);
    const up = await put(s, user.key, path, 'unknown-codec.wav');
    expect(up.status).toBe(400);
    expect(up.body.error.code).toBe('AUDIO_NOT_DECODABLE');
    expect(up.body.error.message).not.toContain(s.dataDir);
    const row = await findUpload(s.rt.db, up.uploadKey);
    expect(row?.status).toBe('pending');
    expect(await s.rt.blobs.stat(row!.storage_key)).toBeNull();
  });

  test('sourceUrl inputs are measured the same way', async () => {
    const path = await mp3WithLyingXing(join(dir, 'remote.mp3'), 12, 6);
    const bytes = await readFile(path);
    const origin: Server = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/mpeg', 'content-length': bytes.length });
      res.end(bytes);
    });
    await new Promise<void>((r) => origin.listen(0, '127.0.0.1', r));
    const other = await startTestServer('sqlite', { ALLOW_PRIVATE_URLS: 'true' });
    try {
      const u = await other.newAccount(300);
      const port = (origin.address() as { port: number }).port;
      const job = await createJob(other, u.key, { sourceUrl: `http://127.0.0.1:${port}/song.mp3` });
      expect(job.status).toBe(201);
      expect(job.body.creditsRequired).toBe(12);
    } finally {
      await other.close();
      origin.close();
    }
  });
});

describe('the duration limit applies to the decoded length', () => {
  test('an MP3 claiming 3 s that decodes to 12 s is over a 6 s limit', async () => {
    const s = await startTestServer('sqlite', { MAX_DURATION_MINUTES: '0.1', MIN_DURATION_SECONDS: '1' });
    try {
      const user = await s.newAccount(300);
      const path = await mp3WithLyingXing(join(dir, 'long.mp3'), 12, 3);
      expect((await probeAudio(path)).durationSeconds).toBeLessThan(3.1);
      const up = await put(s, user.key, path, 'long.mp3');
      expect(up.status).toBe(200);
      // Decoding stopped once past the limit: the upload knows only that it is longer.
      expect(up.body.durationSeconds).toBeGreaterThan(6);
      const job = await createJob(s, user.key, { uploadKey: up.uploadKey });
      expect(job.status).toBe(400);
      expect(job.body.error.code).toBe('AUDIO_TOO_LONG');
    } finally {
      await s.close();
    }
  });
});

/** Output files of a completed job, downloaded. */
async function downloadOutputs(job: any): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const [stem, out] of Object.entries<any>(job.outputs)) {
    const path = join(dir, `${job.id}-${stem}.wav`);
    await writeFile(path, Buffer.from(await (await fetch(out.url)).arrayBuffer()));
    files[stem] = path;
  }
  return files;
}

describe('what a job processes is what it was billed (real separation, FAST, short clips)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  beforeAll(async () => {
    s = await startTestServer('sqlite', {
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      WORKER_CONCURRENCY: '1',
      MIN_DURATION_SECONDS: '1',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    workers = await startWorkers(s.rt);
    user = await s.newAccount(300);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('an MP3 whose Xing frame claims 3 s of its 6 s: billed 6, charged 6, stems of 6 s', async () => {
    const path = await mp3WithLyingXing(join(dir, 'sep.mp3'), 6, 3);
    const up = await put(s, user.key, path, 'sep.mp3');
    const created = await createJob(s, user.key, {
      uploadKey: up.uploadKey,
      outputType: 'VOCALS',
      outputFormat: 'WAV',
    });
    expect(created.body.creditsRequired).toBe(6);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(6);
    const { vocals } = await downloadOutputs(job);
    const seconds = (await probeAudio(vocals!)).durationSeconds;
    expect(seconds).toBeGreaterThan(5.9);
    expect(seconds).toBeLessThanOrEqual(6);
  });

  test('defence in depth: a stored input longer than its bill (replaced after billing) is cut at the billed length', async () => {
    const honest = await makeTone(join(dir, 'honest.mp3'), 3);
    const up = await put(s, user.key, honest, 'honest.mp3');
    // The upload was measured (3 s); now its stored bytes become 6 s of audio, as a bypassed
    // measurement or a replaced object would make them. The job is billed from the upload's 3 s.
    const row = await findUpload(s.rt.db, up.uploadKey);
    await s.rt.blobs.putFile(row!.storage_key, await makeTone(join(dir, 'longer.mp3'), 6), {
      contentType: 'audio/mpeg',
    });
    const created = await createJob(s, user.key, {
      uploadKey: up.uploadKey,
      outputType: 'VOCALS',
      outputFormat: 'WAV',
    });
    expect(created.body.creditsRequired).toBe(3);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${created.body.id}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(3);
    const { vocals } = await downloadOutputs(job);
    const seconds = (await probeAudio(vocals!)).durationSeconds;
    expect(seconds).toBeGreaterThan(2.9);
    expect(seconds).toBeLessThanOrEqual(3.001);
  });

  test('defence in depth for voice cleaning too: a replaced, longer input is cleaned only for its billed length', async () => {
    const honest = await makeTone(join(dir, 'speech.wav'), 3, { channels: 1 });
    const up = await put(s, user.key, honest, 'speech.wav');
    const row = await findUpload(s.rt.db, up.uploadKey);
    await s.rt.blobs.putFile(row!.storage_key, await makeTone(join(dir, 'speech-long.wav'), 6, { channels: 1 }), {
      contentType: 'audio/wav',
    });
    const created: any = await (
      await s.api('/v1/denoise-jobs', {
        key: user.key,
        method: 'POST',
        json: {
          inputFileName: 'speech.wav',
          inputFilePath: up.uploadKey,
          inputFileSize: up.body.fileSizeBytes,
          durationSeconds: 3,
          outputFormat: 'WAV',
        },
      })
    ).json();
    expect(created.creditsRequired).toBe(3);
    const { job } = await waitForJob(s, user.key, `/v1/denoise-jobs/${created.jobId}`);
    expect(job.status).toBe('COMPLETED');
    expect(job.creditsCharged).toBe(3);
    const res = await s.api(job.downloadUrl, { key: user.key });
    const out = join(dir, 'cleaned.wav');
    await writeFile(out, Buffer.from(await res.arrayBuffer()));
    const seconds = (await probeAudio(out)).durationSeconds;
    expect(seconds).toBeGreaterThan(2.9);
    expect(seconds).toBeLessThanOrEqual(3.05);
  });
});
