import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import { JobPeaks, JobsPage, JobView, LedgerPage, Overview } from '../src/contract/dashboard.ts';
import { chargeHold } from '../src/store/credits.ts';
import { dialects } from './helpers/db.ts';
import { newDashboardUser, signedIn, BEHIND_LOCAL_PROXY } from './helpers/dashboard.ts';
import { getJson } from './helpers/dashboard.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { uploadFile } from './helpers/jobs.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';

const run = promisify(execFile);
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/** 2 s of a stereo 440 Hz tone at amplitude 0.5, then 2 s of silence, as MP3 (real ffmpeg). */
async function toneThenSilence(dir: string): Promise<{ bytes: Buffer; peak: number }> {
  const path = join(dir, 'half.mp3');
  await run('ffmpeg', [
    ...['-nostdin', '-v', 'error', '-y', '-f', 'lavfi'],
    ...['-i', 'aevalsrc=0.5*sin(2*PI*440*t)|0.5*sin(2*PI*440*t):s=44100:d=2,apad=pad_dur=2', '-b:a', '128k', path],
  ]);
  // The reference peak, measured independently by ffmpeg's astats on the decoded file.
  const { stderr } = await run('ffmpeg', ['-nostdin', '-i', path, '-af', 'astats', '-f', 'null', '-']);
  const db = Number(/Overall[\s\S]*Peak level dB: (-?[\d.]+)/.exec(stderr)![1]);
  return { bytes: await readFile(path), peak: 10 ** (db / 20) };
}

describe.each(dialects)('dashboard API: jobs, peaks, ledger (%s)', (dialect) => {
  let s: TestServer;
  let dir: string;
  let clip: Buffer;
  let clipPeak: number;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stemforge-dash-'));
    let tone: { bytes: Buffer; peak: number };
    [s, tone] = await Promise.all([startTestServer(dialect, BEHIND_LOCAL_PROXY), toneThenSilence(dir)]);
    clip = tone.bytes;
    clipPeak = tone.peak;
  });
  afterAll(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  test('one list across kinds with filters, the job view with signed outputs, peaks cached; another account gets 404', async () => {
    const user = await newDashboardUser(s);
    const c = await signedIn(s, user);
    const { job: stem } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      input: { fileName: '<img src=x onerror=alert(1)>.wav', durationSeconds: 4, fileSizeBytes: clip.length },
      outputs: { vocals: clip, instrumental: clip },
    });
    const { job: video } = await commitFinishedJob(s.rt, user.id, {
      kind: 'video',
      outcome: 'FAILED',
      input: {
        ...{
          fileName: 'v.m4a',
          durationSeconds: 61,
          fileSizeBytes: 0,
          downloadUrl: 'https://www.youtube.com/watch?v=abc',
        },
        ...{
          videoId: 'abcdefghijk',
          videoTitle: 'A video',
          videoDuration: 61,
          videoUrl: 'https://www.youtube.com/watch?v=abcdefghijk',
        },
        ...{ videoThumbnail: 'https://i.ytimg.com/vi/abcdefghijk/hq.jpg', channelName: 'Chan' },
      },
    });

    const all = await getJson(c, '/jobs', JobsPage);
    expect(all.jobs.map((j) => [j.id, j.kind, j.title])).toEqual([
      [video.id, 'video', 'A video'],
      [stem.id, 'stem', '<img src=x onerror=alert(1)>.wav'],
    ]);
    expect(all.pagination).toEqual({ total: 2, limit: 20, offset: 0, hasMore: false });
    expect((await getJson(c, '/jobs?kind=video', JobsPage)).jobs.map((j) => j.id)).toEqual([video.id]);
    expect((await getJson(c, '/jobs?status=COMPLETED', JobsPage)).jobs.map((j) => j.id)).toEqual([stem.id]);
    const paged = await getJson(c, '/jobs?limit=1&offset=1', JobsPage);
    expect(paged.jobs.map((j) => j.id)).toEqual([stem.id]);
    expect(paged.pagination.hasMore).toBe(false);
    expect((await c.call('GET', '/jobs?kind=opera')).status).toBe(400);

    const view = await getJson(c, `/jobs/${stem.id}`, JobView);
    expect(Object.keys(view.outputs).sort()).toEqual(['instrumental', 'vocals']);
    const vocalsView = view.outputs.vocals;
    assert(vocalsView, 'no vocals output');
    expect(vocalsView).toMatchObject({ format: 'MP3', sizeBytes: clip.length });
    // Links to this site are relative (the browser uses the origin it is on).
    expect(vocalsView.url).toMatch(/^\/v1\/blobs\//);
    const download = await fetch(`${s.base}${vocalsView.url}`);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer()).equals(clip)).toBe(true);
    const videoView = await getJson(c, `/jobs/${video.id}`, JobView);
    expect(videoView).toMatchObject({
      thumbnail: 'https://i.ytimg.com/vi/abcdefghijk/hq.jpg',
      sourceUrl: 'https://www.youtube.com/watch?v=abcdefghijk',
      outputs: {},
      errorMessage: 'simulated failure',
    });

    const peaks = await getJson(c, `/jobs/${stem.id}/peaks`, JobPeaks);
    const vocals = peaks.outputs.vocals;
    assert(vocals, 'no vocals peaks');
    expect(vocals.peaks).toHaveLength(1000);
    expect(vocals.duration).toBeGreaterThan(3.95);
    expect(vocals.duration).toBeLessThan(4.15);
    // The tone fills the first half, silence the second: the buckets follow time, at the file's level
    // (decoding at 8 kHz may miss a crest by a little, never exceed it by much).
    expect(clipPeak).toBeGreaterThan(0.4);
    expect(Math.min(...vocals.peaks.slice(20, 470))).toBeGreaterThan(clipPeak * 0.9);
    expect(Math.abs(Math.max(...vocals.peaks) - clipPeak)).toBeLessThan(0.03);
    expect(Math.max(...vocals.peaks.slice(530))).toBeLessThan(0.01);
    expect(await s.rt.blobs.stat(`jobs/${stem.id}/peaks/vocals.json`)).not.toBeNull();
    // Served from the cache the second time: same numbers even with the audio gone.
    await s.rt.blobs.delete(`jobs/${stem.id}/vocals.mp3`);
    expect((await getJson(c, `/jobs/${stem.id}/peaks`, JobPeaks)).outputs.vocals).toEqual(vocals);
    expect((await c.call('GET', `/jobs/${video.id}/peaks`)).status).toBe(409);
    const { job: gone } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED', outputs: { vocals: clip } });
    await s.rt.blobs.delete(`jobs/${gone.id}/vocals.mp3`);
    const expired = await c.call('GET', `/jobs/${gone.id}/peaks`);
    expect(expired.status).toBe(410);
    expect((await errorOf(expired)).code).toBe('OUTPUT_EXPIRED');

    const other = await signedIn(s, await newDashboardUser(s));
    for (const path of [`/jobs/${stem.id}`, `/jobs/${stem.id}/peaks`]) {
      const r = await other.call('GET', path);
      expect(r.status, path).toBe(404);
      expect((await errorOf(r)).code).toBe('JOB_NOT_FOUND');
    }
    expect((await getJson(other, '/jobs', JobsPage)).jobs).toEqual([]);
  });

  test('denoise jobs: the original is offered for the A/B player, with its peaks under `input`', async () => {
    const user = await newDashboardUser(s);
    const c = await signedIn(s, user);
    const { job } = await commitFinishedJob(s.rt, user.id, {
      kind: 'denoise',
      outcome: 'COMPLETED',
      options: { outputFormat: 'MP3' },
      outputs: { denoised: clip },
    });
    await s.rt.blobs.put(job.source_key!, Readable.from([clip]), { contentType: 'audio/mpeg' });
    const view = await getJson(c, `/jobs/${job.id}`, JobView);
    expect(view.options).toEqual({ outputType: null, quality: null, outputFormat: 'MP3', denoiseVocals: false });
    expect((await fetch(`${s.base}${view.input.url}`)).status).toBe(200);
    const peaks = await getJson(c, `/jobs/${job.id}/peaks`, JobPeaks);
    expect(Object.keys(peaks.outputs).sort()).toEqual(['denoised', 'input']);
    expect(peaks.outputs.input?.peaks).toEqual(peaks.outputs.denoised?.peaks);
  });

  test('a job created in the dashboard holds credits like the API; the ledger and overview show hold and charge; 402 as the API says it', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const wav = join(dir, 'job.wav');
    await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=6', wav]);
    const grant = await c.call('POST', '/uploads', { filename: 'job.wav' });
    expect(grant.status).toBe(200);
    const { uploadUrl, uploadKey, contentType } = (await grant.json()) as Record<string, string>;
    expect(uploadUrl).toMatch(/^\/v1\/uploads\//);
    const put = await fetch(`${s.base}${uploadUrl}`, {
      method: 'PUT',
      headers: { 'content-type': contentType },
      body: await readFile(wav),
    });
    expect(put.status).toBe(200);
    const created = await c.call('POST', '/jobs', { kind: 'stem', uploadKey, outputType: 'VOCALS', quality: 'FAST' });
    expect(created.status).toBe(201);
    const { id, kind } = (await created.json()) as { id: string; kind: string };
    expect(kind).toBe('stem');

    const ledger = await getJson(c, '/ledger', LedgerPage);
    expect(ledger.entries.map((e) => [e.type, e.seconds, e.jobId, e.jobKind])).toEqual([
      ['HOLD', 6, id, 'stem'],
      ['GRANT', 300, null, null],
    ]);
    expect((await getJson(c, '/overview', Overview)).balance).toEqual({
      balanceSeconds: 294,
      balanceMinutes: 4,
      balanceFormatted: expect.any(String),
    });
    // The worker's settlement, as its terminal transaction does it.
    await s.rt.db.transaction().execute((tx) => chargeHold(tx, user.id, id, 5));
    const after = await getJson(c, '/ledger?limit=2', LedgerPage);
    expect(after.entries.map((e) => [e.type, e.seconds])).toEqual([
      ['CHARGE', 5],
      ['RELEASE', 1],
    ]);
    expect(after.pagination).toEqual({ total: 4, limit: 2, offset: 0, hasMore: true });
    const overview = await getJson(c, '/overview', Overview);
    expect(overview.balance.balanceSeconds).toBe(295);
    expect(overview.usage).toHaveLength(30);
    expect(overview.usage.at(-1)).toEqual({ date: new Date().toISOString().slice(0, 10), seconds: 5 });
    expect(overview.usage.slice(0, -1).every((d) => d.seconds === 0)).toBe(true);

    const poor = await newDashboardUser(s, 1);
    const pc = await signedIn(s, poor);
    const viaApi = await s.api('/v1/jobs', {
      key: poor.key,
      method: 'POST',
      json: { uploadKey: await uploadFile(s, poor.key, wav, 'job.wav') },
    });
    const viaDashboard = await pc.call('POST', '/jobs', {
      kind: 'stem',
      uploadKey: await uploadFile(s, poor.key, wav, 'job.wav'),
    });
    expect(viaDashboard.status).toBe(402);
    expect(viaApi.status).toBe(402);
    const [d, a] = [await errorOf(viaDashboard), await errorOf(viaApi)];
    expect(d).toEqual(a);
    expect(d.message).toContain('6');
  });
});
