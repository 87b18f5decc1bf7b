import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { TestServer } from './helpers/server.ts';
import { startImportService, stopImportService } from './helpers/imports.ts';
import { waitForJob } from './helpers/jobs.ts';
import type { Workers } from '../src/worker/start.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';

/**
 * A track job end to end with a FAKE yt-dlp (the track site cannot be reached from here) whose
 * metadata has no duration (`NoDuration0` token): 240 credits are held at creation and the charge
 * is reconciled to the probed duration of the downloaded audio (6.01 s -> 7 credits). One real
 * HTDemucs separation (BEST: track jobs have fixed options).
 */
describe('track job with unknown duration, fake yt-dlp (real separation)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };

  beforeAll(async () => {
    ({ s, workers, user } = await startImportService({ WORKER_CONCURRENCY: '1' }));
  });
  afterAll(() => stopImportService({ s, workers }));

  test('holds 240 credits, completes with fullAudio + stems, and charges the real 7', async () => {
    const res = await s.api('/v1/track-jobs', {
      key: user.key,
      method: 'POST',
      json: {
        trackUrl: 'https://m.soundcloud.com/fake-artist/NoDuration0?si=abc&utm_source=x',
        outputDir: '/Users/me/Music',
      },
    });
    expect(res.status).toBe(201);
    const created: any = await res.json();
    expect(created).toMatchObject({
      status: 'PENDING',
      trackId: 'fake-artist/NoDuration0',
      trackTitle: 'Fake track fake-artist/NoDuration0',
      trackDuration: null,
      trackDurationEstimated: true,
      trackArtwork: 'https://i1.sndcdn.example/artworks-fakeartistNoDuration0-t500x500.jpg',
      artistName: 'Fake Artist',
      creditsRequired: null,
      outputs: ['vocals', 'instrumental'],
    });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 240);
    const early: any = await (await s.api(`/v1/track-jobs/${created.id}`, { key: user.key })).json();
    expect(early.creditsCharged).toBeNull(); // not settled yet

    const { job, progress } = await waitForJob(s, user.key, `/v1/track-jobs/${created.id}`);
    expect(job.errorMessage).toBeNull();
    expect(job.status).toBe('COMPLETED');
    for (let i = 1; i < progress.length; i++) expect(progress[i]).toBeGreaterThanOrEqual(progress[i - 1]!);
    expect(job).toMatchObject({
      trackDuration: 6,
      trackDurationEstimated: true,
      creditsRequired: 7,
      creditsCharged: 7,
      progress: 100,
    });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 7);
    const ledger = (await listLedger(s.rt.db, user.id)).filter((l) => l.job_id === created.id);
    expect(ledger.map((l) => [l.kind, l.seconds, l.delta_seconds])).toEqual([
      ['hold', 240, -240],
      ['release', 233, 233],
      ['charge', 7, 0],
    ]);

    expect(Object.keys(job.outputs).sort()).toEqual(['fullAudio', 'instrumental', 'vocals']);
    for (const stem of Object.keys(job.outputs)) {
      const file = await fetch(job.outputs[stem].url);
      expect(file.status).toBe(200);
      expect(file.headers.get('content-type')).toBe('audio/mpeg');
      const path = join(s.dataDir, `${stem}.mp3`);
      await writeFile(path, Buffer.from(await file.arrayBuffer()));
      const probe = await probeAudio(path);
      expect(probe.durationSeconds).toBeGreaterThan(5.9);
      expect(probe.durationSeconds).toBeLessThan(6.2);
    }
    const list: any = await (await s.api('/v1/track-jobs?status=COMPLETED', { key: user.key })).json();
    expect(list.pagination).toEqual({ total: 1, limit: 20, offset: 0, hasMore: false });
    expect(list.jobs[0]).toMatchObject({ id: created.id, creditsCharged: 7, trackDuration: 6 });
  });
});
