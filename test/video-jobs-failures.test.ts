import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { TestServer } from './helpers/server.ts';
import { startImportService, stopImportService } from './helpers/imports.ts';
import { waitForJob } from './helpers/jobs.ts';
import type { Workers } from '../src/worker/start.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';
import { findJob } from '../src/store/jobs.ts';

const TIMEOUT_MS = 4000;

/**
 * /video-jobs refusals and download-stage failures, against a FAKE yt-dlp (test/fixtures/fake-yt-dlp:
 * the video site cannot be reached from here). No job in this file reaches separation: every
 * created job fails in its download stage, so the file runs in seconds.
 */
describe('video jobs with a fake yt-dlp: refusals and download failures', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };

  beforeAll(async () => {
    ({ s, workers, user } = await startImportService({
      YTDLP_TIMEOUT_MS: String(TIMEOUT_MS),
      JOB_MAX_ATTEMPTS: '2',
      JOB_RETRY_BASE_MS: '100',
    }));
  });
  afterAll(() => stopImportService({ s, workers }));

  const create = async (key: string, json: unknown) => {
    const res = await s.api('/v1/video-jobs', { key, method: 'POST', json });
    return { status: res.status, body: (await res.json()) as any };
  };

  test.each(['FOUR_STEMS', 'SIX_STEMS'])(
    'outputType %s is 400 VALIDATION_ERROR naming the supported types',
    async (outputType) => {
      const r = await create(user.key, { videoUrl: 'https://youtu.be/FalconVid01', outputType });
      expect(r.status).toBe(400);
      expect(r.body.error.code).toBe('VALIDATION_ERROR');
      expect(r.body.error.field).toBe('outputType');
      expect(r.body.error.message).toMatch(/VOCALS, INSTRUMENTAL or BOTH/);
      expect(r.body.error.message).toContain(outputType.startsWith('FOUR') ? 'FOUR_STEMS' : 'SIX_STEMS');
    },
  );

  test('the OpenAPI document lists the routes and only the three video output types', async () => {
    const doc: any = await (await s.api('/v1/openapi.json')).json();
    const body = doc.paths['/v1/video-jobs'].post.requestBody.content['application/json'].schema;
    expect(body.required).toEqual(['videoUrl']);
    expect(body.properties.outputType.enum).toEqual(['VOCALS', 'INSTRUMENTAL', 'BOTH']);
    for (const path of ['/v1/video-jobs/{id}', '/v1/track-jobs', '/v1/track-jobs/{id}'])
      expect(doc.paths[path]).toBeTruthy();
  });

  test('missing videoUrl and unknown enum values are 400 VALIDATION_ERROR', async () => {
    expect((await create(user.key, { outputType: 'BOTH' })).body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'videoUrl',
    });
    expect((await create(user.key, { videoUrl: 'FalconVid01', quality: 'ULTRA' })).body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      field: 'quality',
    });
  });

  test('an address of another site is 400 INVALID_VIDEO_URL', async () => {
    const r = await create(user.key, { videoUrl: 'https://vimeo.com/123456' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('INVALID_VIDEO_URL');
    expect(r.body.error.message).toContain('vimeo.com');
  });

  test('a private video is 404 VIDEO_NOT_FOUND at creation; nothing held, no job', async () => {
    const r = await create(user.key, { videoUrl: 'https://www.youtube.com/watch?v=PrivateVid0' });
    expect(r.status).toBe(404);
    expect(r.body.error).toMatchObject({ code: 'VIDEO_NOT_FOUND', message: 'The video is private.' });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });

  test('a video over 60 minutes is 400 AUDIO_TOO_LONG at creation', async () => {
    const r = await create(user.key, { videoUrl: 'https://m.youtube.com/watch?v=LongVideo00' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('AUDIO_TOO_LONG');
    expect(r.body.error.message).toBe('The video is 120 minutes long; the maximum is 60 minutes.');
  });

  test('a video without a reported duration is refused with 400 VIDEO_DURATION_UNKNOWN', async () => {
    const r = await create(user.key, { videoUrl: 'NoDuration0' });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe('VIDEO_DURATION_UNKNOWN');
  });

  test('not enough credits is 402 with requiredSeconds and purchaseUrl', async () => {
    const poor = await s.newAccount(5);
    const r = await create(poor.key, { videoUrl: 'https://youtu.be/FalconVid01' });
    expect(r.status).toBe(402);
    expect(r.body.error).toMatchObject({ code: 'INSUFFICIENT_CREDITS', requiredSeconds: 7 });
    expect(r.body.error.purchaseUrl).toMatch(/^https:/);
    expect(await getBalanceSeconds(s.rt.db, poor.id)).toBe(5);
  });

  test('the downloader crashing in the download stage: retried, then FAILED, credits released', async () => {
    const r = await create(user.key, { videoUrl: 'https://www.youtube.com/embed/DlCrash0000', quality: 'FAST' });
    expect(r.status).toBe(201);
    expect(r.body).toMatchObject({
      status: 'PENDING',
      videoId: 'DlCrash0000',
      creditsRequired: 7,
      outputs: ['vocals', 'instrumental'],
    });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 7);
    const { job } = await waitForJob(s, user.key, `/v1/video-jobs/${r.body.id}`, 60_000);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toBe('The downloader failed; it may need an update for this site.');
    expect(job.outputs).toBeNull();
    expect(job.creditsCharged).toBe(0);
    expect((await findJob(s.rt.db, r.body.id))!.attempts).toBe(2); // JOB_MAX_ATTEMPTS: retried once
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
    const ledger = (await listLedger(s.rt.db, user.id)).filter((l) => l.job_id === r.body.id);
    expect(ledger.map((l) => [l.kind, l.seconds])).toEqual([
      ['hold', 7],
      ['release', 7],
    ]);
  });

  test('a download that hangs is killed at YTDLP_TIMEOUT_MS, retried, then FAILED', async () => {
    const started = Date.now();
    const r = await create(user.key, { videoUrl: 'https://youtu.be/DlHang00000' });
    expect(r.status).toBe(201);
    const { job } = await waitForJob(s, user.key, `/v1/video-jobs/${r.body.id}`, 60_000);
    expect(job.status).toBe('FAILED');
    expect(job.errorMessage).toBe('Downloading the video took too long and was stopped.');
    expect(Date.now() - started).toBeGreaterThanOrEqual(2 * TIMEOUT_MS);
    expect((await findJob(s.rt.db, r.body.id))!.attempts).toBe(2);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
  });

  test('list: newest first, pagination fields, status filter; other accounts see nothing', async () => {
    const extra = await create(user.key, { videoUrl: 'DlCrash0000', outputType: 'VOCALS', outputFormat: 'WAV' });
    expect(extra.body.outputs).toEqual(['vocals']);
    await waitForJob(s, user.key, `/v1/video-jobs/${extra.body.id}`, 60_000);

    const page1: any = await (await s.api('/v1/video-jobs?limit=2', { key: user.key })).json();
    expect(page1.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    expect(page1.jobs).toHaveLength(2);
    expect(page1.jobs[0].id).toBe(extra.body.id);
    expect(page1.jobs[0]).toMatchObject({
      status: 'FAILED',
      videoId: 'DlCrash0000',
      videoTitle: 'Fake video DlCrash0000',
      videoDuration: 6,
      videoThumbnail: 'https://i.ytimg.example/vi/DlCrash0000/maxresdefault.jpg',
      channelName: 'Fake Channel',
      creditsRequired: 7,
      creditsCharged: 0,
      outputs: null,
      audioMetadata: null,
      options: { outputType: 'VOCALS', quality: 'BEST', outputFormat: 'WAV' },
    });
    const page2: any = await (await s.api('/v1/video-jobs?limit=2&offset=2', { key: user.key })).json();
    expect(page2.pagination).toEqual({ total: 3, limit: 2, offset: 2, hasMore: false });
    expect(page2.jobs).toHaveLength(1);
    const completed: any = await (await s.api('/v1/video-jobs?status=COMPLETED', { key: user.key })).json();
    expect(completed.pagination.total).toBe(0);
    expect((await s.api('/v1/video-jobs?limit=101', { key: user.key })).status).toBe(400);

    const other = await s.newAccount(300);
    const theirs: any = await (await s.api('/v1/video-jobs', { key: other.key })).json();
    expect(theirs.pagination.total).toBe(0);
    const res = await s.api(`/v1/video-jobs/${extra.body.id}`, { key: other.key });
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('JOB_NOT_FOUND');
    // A video job is not a stem job either.
    expect((await s.api(`/v1/jobs/${extra.body.id}`, { key: user.key })).status).toBe(404);
  });
});
