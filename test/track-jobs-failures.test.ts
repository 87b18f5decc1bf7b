import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestServer } from './helpers/server.ts';
import { startImportService, stopImportService } from './helpers/imports.ts';
import { waitForJob } from './helpers/jobs.ts';
import type { Workers } from '../src/worker/start.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { findJob } from '../src/store/jobs.ts';

/**
 * /track-jobs refusals and download-stage failures, against a FAKE yt-dlp
 * (test/fixtures/fake-yt-dlp). No job here reaches separation.
 */
describe('track jobs with a fake yt-dlp: refusals and download failures', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };

  beforeAll(async () => {
    ({ s, workers, user } = await startImportService({ JOB_MAX_ATTEMPTS: '2', JOB_RETRY_BASE_MS: '100' }));
  });
  afterAll(() => stopImportService({ s, workers }));

  const create = async (key: string, json: unknown) => {
    const res = await s.api('/v1/track-jobs', { key, method: 'POST', json });
    return { status: res.status, body: (await res.json()) as any };
  };

  test.each([
    ['private', 'https://soundcloud.com/fake-artist/PrivateVid0', 'The track is private.'],
    [
      'removed',
      'https://soundcloud.com/fake-artist/GoneVideo00',
      'The track is unavailable: it may have been removed or never existed.',
    ],
    [
      'geo-blocked',
      'https://soundcloud.com/fake-artist/GeoBlocked0',
      "The track is not available in this server's country (geo-blocked).",
    ],
  ])('a %s track is 404 TRACK_NOT_FOUND at creation; nothing held', async (_what, trackUrl, message) => {
    const r = await create(user.key, { trackUrl });
    expect(r.status).toBe(404);
    expect(r.body.error).toEqual({ code: 'TRACK_NOT_FOUND', message });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });

  test('a track over 15 minutes is 400 AUDIO_TOO_LONG at creation', async () => {
    const r = await create(user.key, { trackUrl: 'soundcloud.com/fake-artist/LongVideo00' });
    expect(r.status).toBe(400);
    expect(r.body.error).toEqual({
      code: 'AUDIO_TOO_LONG',
      message: 'The track is 120 minutes long; the maximum is 15 minutes.',
    });
  });

  test('playlists are 400 INVALID_TRACK_URL, also behind a short code', async () => {
    const direct = await create(user.key, { trackUrl: 'https://soundcloud.com/fake-artist/sets/my-set' });
    expect(direct.status).toBe(400);
    expect(direct.body.error.code).toBe('INVALID_TRACK_URL');
    const short = await create(user.key, { trackUrl: 'https://on.soundcloud.com/PlaylistX00' });
    expect(short.status).toBe(400);
    expect(short.body.error.code).toBe('INVALID_TRACK_URL');
    expect((await create(user.key, {})).body.error).toMatchObject({ code: 'VALIDATION_ERROR', field: 'trackUrl' });
  });

  test('402 when the balance does not cover the quote, or the 240-credit hold of an unknown duration', async () => {
    const poor = await s.newAccount(100);
    const unknown = await create(poor.key, { trackUrl: 'https://soundcloud.com/fake-artist/NoDuration0' });
    expect(unknown.status).toBe(402);
    expect(unknown.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', requiredSeconds: 240 });
    const broke = await s.newAccount(5);
    const known = await create(broke.key, { trackUrl: 'https://soundcloud.com/fake-artist/some-song' });
    expect(known.status).toBe(402);
    expect(known.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', requiredSeconds: 7 });
    expect(await getBalanceSeconds(s.rt.db, poor.id)).toBe(100);
  });

  test('a short code is resolved and pinned; a download crash is retried, then FAILED with credits released', async () => {
    const r = await create(user.key, { trackUrl: 'https://on.soundcloud.com/DlCrash0000' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      trackId: 'fake-artist/DlCrash0000', // the resolved permalink, not the short code
      trackDuration: 6,
      trackDurationEstimated: false,
      creditsRequired: 7,
      outputs: ['vocals', 'instrumental'],
    });
    const row = await findJob(s.rt.db, r.body.id);
    expect(JSON.parse(row!.input_json).downloadUrl).toBe('https://soundcloud.com/fake-artist/DlCrash0000');
    expect(JSON.parse(row!.options_json)).toEqual({
      outputType: 'BOTH',
      quality: 'BEST',
      outputFormat: 'MP3',
      model: 'htdemucs',
    });

    const { job } = await waitForJob(s, user.key, `/v1/track-jobs/${r.body.id}`, 60_000);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toBe('The downloader failed; it may need an update for this site.');
    expect(job.creditsCharged).toBe(0);
    expect((await findJob(s.rt.db, r.body.id))!.attempts).toBe(2);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
    const ledger = (await listLedger(s.rt.db, user.id)).filter((l) => l.job_id === r.body.id);
    expect(ledger.map((l) => l.kind)).toEqual(['hold', 'release']);
  });

  test('list pagination and cross-account 404', async () => {
    const second = await create(user.key, { trackUrl: 'https://www.soundcloud.com/fake-artist/dlcrash0000-two' });
    expect(second.status).toBe(201);
    await waitForJob(s, user.key, `/v1/track-jobs/${second.body.id}`, 60_000);
    const page: any = await (await s.api('/v1/track-jobs?limit=1', { key: user.key })).json();
    expect(page.pagination).toEqual({ total: 2, limit: 1, offset: 0, hasMore: true });
    expect(page.jobs[0]).toMatchObject({
      id: second.body.id,
      status: 'FAILED',
      trackId: 'fake-artist/dlcrash0000-two',
      creditsCharged: 0,
    });
    const last: any = await (await s.api('/v1/track-jobs?limit=1&offset=1', { key: user.key })).json();
    expect(last.pagination).toEqual({ total: 2, limit: 1, offset: 1, hasMore: false });

    const other = await s.newAccount(300);
    const res = await s.api(`/v1/track-jobs/${second.body.id}`, { key: other.key });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('JOB_NOT_FOUND');
    expect((await s.api(`/v1/video-jobs/${second.body.id}`, { key: user.key })).status).toBe(404);
  });
});
