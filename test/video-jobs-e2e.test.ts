import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestServer } from './helpers/server.ts';
import { startImportService, stopImportService } from './helpers/imports.ts';
import { waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import type { Workers } from '../src/worker/start.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { findJob } from '../src/store/jobs.ts';
import { buildWebhookPayload } from '../src/jobs/events/webhook-payload.ts';

const rmsOf = (channels: Float32Array[]) => {
  let sum = 0;
  let n = 0;
  for (const c of channels)
    for (const v of c) {
      sum += v * v;
      n++;
    }
  return Math.sqrt(sum / n);
};

/**
 * A video job end to end with a FAKE yt-dlp (the video site cannot be reached from here; the fake
 * answers yt-dlp's JSON and "downloads" the 6 s falcon mixture from shared/audio), and the real
 * HTDemucs separation: create, download stage, inference stage, downloadable fullAudio + stems.
 */
describe('video job end to end with a fake yt-dlp (real separation)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };

  beforeAll(async () => {
    ({ s, workers, user } = await startImportService({ WORKER_CONCURRENCY: '1' }));
  });
  afterAll(() => stopImportService({ s, workers }));

  test('a watch address (FAST, BOTH, MP3) completes with fullAudio, vocals and instrumental', async () => {
    const res = await s.api('/v1/video-jobs', {
      key: user.key,
      method: 'POST',
      // Extra parameters (t, list, si) are dropped: only the canonical watch URL reaches yt-dlp.
      json: { videoUrl: 'https://music.youtube.com/watch?v=FalconVid01&t=42&list=PL123', quality: 'FAST' },
    });
    expect(res.status).toBe(201);
    const created: any = await res.json();
    expect(created).toMatchObject({
      status: 'PENDING',
      videoId: 'FalconVid01',
      videoTitle: 'Fake video FalconVid01',
      videoDuration: 6,
      videoThumbnail: 'https://i.ytimg.example/vi/FalconVid01/maxresdefault.jpg',
      channelName: 'Fake Channel',
      creditsRequired: 7, // 6.01 s rounded up
      outputs: ['vocals', 'instrumental'],
    });
    expect(new Date(created.createdAt).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 7);
    const row = await findJob(s.rt.db, created.id);
    expect(JSON.parse(row!.input_json).downloadUrl).toBe('https://www.youtube.com/watch?v=FalconVid01');
    expect(JSON.parse(row!.options_json)).toEqual({
      outputType: 'BOTH',
      quality: 'FAST',
      outputFormat: 'MP3',
      model: 'htdemucs',
    });

    const { job, progress } = await waitForJob(s, user.key, `/v1/video-jobs/${created.id}`);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    expect(job.progress).toBe(100);
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(job.completedAt).toBeTruthy();
    expect(job.creditsCharged).toBe(7);
    expect(job.creditsRequired).toBe(7);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 7);
    const ledger = (await listLedger(s.rt.db, user.id)).filter((l) => l.job_id === created.id);
    expect(ledger.map((l) => [l.kind, l.seconds])).toEqual([
      ['hold', 7],
      ['charge', 7],
    ]);
    // Analysis never fails a job, so audioMetadata may be null; when present it has the contract's shape.
    // Plus each one's confidence (extra fields, issue 16).
    if (job.audioMetadata)
      expect(Object.keys(job.audioMetadata).sort()).toEqual(['bpm', 'key', 'keyConfidence', 'tempoConfidence']);

    expect(Object.keys(job.outputs).sort()).toEqual(['fullAudio', 'instrumental', 'vocals']);
    const rms: Record<string, number> = {};
    for (const stem of ['fullAudio', 'vocals', 'instrumental']) {
      const entry = job.outputs[stem];
      const ttl = new Date(entry.expiresAt).getTime() - Date.now();
      expect(ttl).toBeGreaterThan(3500_000);
      const file = await fetch(entry.url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('audio/mpeg');
      expect(file.headers.get('content-disposition')).toContain(`Fake video FalconVid01-${stem}.mp3`);
      const path = join(s.dataDir, `${stem}.mp3`);
      await writeFile(path, Buffer.from(await file.arrayBuffer()));
      const probe = await probeAudio(path);
      expect(probe.codec).toBe('mp3');
      expect(probe.durationSeconds).toBeGreaterThan(5.9);
      expect(probe.durationSeconds).toBeLessThan(6.2);
      rms[stem] = rmsOf((await decodeToPlanar(path)).channels);
    }
    // fullAudio is the mixture itself (as loud as the source), not one of the stems.
    const source = rmsOf((await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'))).channels);
    expect(Math.abs(20 * Math.log10(rms.fullAudio! / source))).toBeLessThan(0.5);
    expect(Math.abs(20 * Math.log10(rms.vocals! / source))).toBeGreaterThan(1);

    // The list carries the same detail objects; the webhook input is the video-specific shape.
    const list: any = await (await s.api('/v1/video-jobs', { key: user.key })).json();
    expect(list.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
    expect(list.jobs[0]).toMatchObject({ id: created.id, status: 'COMPLETED', creditsCharged: 7 });
    expect(Object.keys(list.jobs[0].outputs).sort()).toEqual(['fullAudio', 'instrumental', 'vocals']);
    const done = (await findJob(s.rt.db, created.id))!;
    const payload = await buildWebhookPayload(done, 'job.completed', done.completed_at!, s.rt.blobs);
    expect(payload.data.type).toBe('video');
    expect(payload.data.input).toEqual({
      videoTitle: 'Fake video FalconVid01',
      videoDuration: 6,
      videoUrl: 'https://www.youtube.com/watch?v=FalconVid01',
      videoVideoId: 'FalconVid01',
    });
  });
});
