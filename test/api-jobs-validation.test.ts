import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createServer, type Server } from 'node:http';
import { createReadStream } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { makeTone } from './helpers/audio.ts';
import { uploadFile } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { getBalanceSeconds, listLedger } from '../src/store/credits.ts';

/**
 * POST/GET /jobs without workers: jobs stay PENDING, so validation, credits and paging are tested
 * alone; on both databases (issue 41: what one refuses the other must refuse too).
 */
describe.each(dialects)('stem job creation and listing on %s', (dialect) => {
  let s: TestServer;
  let user: { id: string; key: string };
  let song: string;
  let clip: string;
  let fileServer: Server;
  let fileUrl: string;

  beforeAll(async () => {
    s = await startTestServer(dialect, { STEMFORGE_MODELS_DIR: sharedPath('models'), MAX_DURATION_MINUTES: '0.2' });
    user = await s.newAccount(300);
    clip = await makeTone(join(s.dataDir, 'clip.wav'), 6);
    song = await uploadFile(s, user.key, clip, 'My Song.wav');
    fileServer = createServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'audio/wav' });
      createReadStream(clip).pipe(res);
    });
    await new Promise<void>((r) => fileServer.listen(0, '127.0.0.1', r));
    fileUrl = `http://127.0.0.1:${(fileServer.address() as { port: number }).port}/remote%20song.wav`;
  });
  afterAll(async () => {
    fileServer?.close();
    await s?.close();
  });

  const post = (json: unknown, key = user.key) => s.api('/v1/jobs', { key, method: 'POST', json });
  const code = async (res: Response) => ((await res.json()) as any).error.code;

  test('201 JobCreated with defaults, held credits and echoed metadata', async () => {
    const before = await getBalanceSeconds(s.rt.db, user.id);
    const res = await post({ uploadKey: song, metadata: { track: 7, tags: ['a'] } });
    expect(res.status).toBe(201);
    const job: any = await res.json();
    expect(job).toMatchObject({
      status: 'PENDING',
      progress: 0,
      creditsRequired: 6,
      input: { fileName: 'My Song.wav', durationSeconds: 6, fileSizeBytes: expect.any(Number) },
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
      outputs: null,
      metadata: { track: 7, tags: ['a'] },
    });
    expect(job.estimatedSeconds).toBeGreaterThan(0);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(before - 6);
    const ledger = await listLedger(s.rt.db, user.id);
    expect(ledger.filter((l) => l.job_id === job.id).map((l) => l.kind)).toEqual(['hold']);
    const detail: any = await (await s.api(`/v1/jobs/${job.id}`, { key: user.key })).json();
    expect(detail).toMatchObject({
      id: job.id,
      status: 'PENDING',
      startedAt: null,
      completedAt: null,
      audioMetadata: null,
      outputs: null,
      creditsCharged: 0,
      errorMessage: null,
    });
  });

  test('fileName overrides the derived name', async () => {
    const job: any = await (
      await post({
        uploadKey: song,
        fileName: 'Renamed.wav',
        outputType: 'VOCALS',
        quality: 'FAST',
        outputFormat: 'WAV',
      })
    ).json();
    expect(job.input.fileName).toBe('Renamed.wav');
    expect(job.options).toEqual({ outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' });
  });

  test('input source errors', async () => {
    expect(await code(await post({}))).toBe('MISSING_INPUT');
    expect(await code(await post({ uploadKey: song, sourceUrl: fileUrl }))).toBe('CONFLICTING_INPUT');
    const other = await s.newAccount();
    const foreign = await uploadFile(s, other.key, clip, 'x.wav');
    let res = await post({ uploadKey: foreign });
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('UPLOAD_NOT_FOUND');
    const pending: any = await (
      await s.api('/v1/upload', { key: user.key, method: 'POST', json: { filename: 'p.wav' } })
    ).json();
    expect(await code(await post({ uploadKey: pending.uploadKey }))).toBe('UPLOAD_NOT_FOUND');
    res = await post({ sourceUrl: fileUrl });
    expect(res.status).toBe(400);
    expect(await code(res)).toBe('URL_NOT_ALLOWED');
    expect(await code(await post({ sourceUrl: 'ftp://example.com/a.mp3' }))).toBe('URL_NOT_ALLOWED');
  });

  test('enum, metadata and six-stem validation', async () => {
    let res = await post({ uploadKey: song, outputType: 'EIGHT_STEMS' });
    expect(res.status).toBe(400);
    const e: any = ((await res.json()) as any).error;
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.message).toContain('outputType');
    expect(await code(await post({ uploadKey: song, quality: 'ULTRA' }))).toBe('VALIDATION_ERROR');
    expect(await code(await post({ uploadKey: song, outputFormat: 'OGG' }))).toBe('VALIDATION_ERROR');
    expect(await code(await post({ uploadKey: song, denoiseVocals: 'yes' }))).toBe('VALIDATION_ERROR');
    expect(await code(await post({ uploadKey: song, metadata: { big: 'x'.repeat(5000) } }))).toBe('VALIDATION_ERROR');
    expect(await code(await post({ uploadKey: song, metadata: [1, 2] }))).toBe('VALIDATION_ERROR');
    res = await post({ uploadKey: song, outputType: 'SIX_STEMS', quality: 'FAST' });
    expect(await code(res)).toBe('VALIDATION_ERROR');
    res = await post({ uploadKey: song, outputType: 'SIX_STEMS' });
    expect(res.status).toBe(400);
    const six: any = ((await res.json()) as any).error;
    expect(six.code).toBe('MODEL_NOT_INSTALLED');
    expect(six.message).toContain('htdemucs_6s');
  });

  test('duration limits', async () => {
    const short = await uploadFile(s, user.key, await makeTone(join(s.dataDir, 'short.wav'), 3), 'short.wav');
    expect(await code(await post({ uploadKey: short }))).toBe('AUDIO_TOO_SHORT');
    const long = await uploadFile(s, user.key, await makeTone(join(s.dataDir, 'long.wav'), 14), 'long.wav');
    expect(await code(await post({ uploadKey: long }))).toBe('AUDIO_TOO_LONG');
  });

  test('402 INSUFFICIENT_CREDITS with requiredSeconds and purchaseUrl; nothing held', async () => {
    const poor = await s.newAccount(4);
    const up = await uploadFile(s, poor.key, clip, 'c.wav');
    const res = await post({ uploadKey: up }, poor.key);
    expect(res.status).toBe(402);
    const body: any = await res.json();
    expect(body.error).toMatchObject({
      code: 'INSUFFICIENT_CREDITS',
      requiredSeconds: 6,
      purchaseUrl: expect.stringMatching(/^https?:/),
    });
    expect(await getBalanceSeconds(s.rt.db, poor.id)).toBe(4);
  });

  test('two racing creations that only one can afford: one 201, one 402', async () => {
    const racer = await s.newAccount(10);
    const up = await uploadFile(s, racer.key, clip, 'r.wav');
    const results = await Promise.all([post({ uploadKey: up }, racer.key), post({ uploadKey: up }, racer.key)]);
    expect(results.map((r) => r.status).sort()).toEqual([201, 402]);
    expect(await getBalanceSeconds(s.rt.db, racer.id)).toBe(4);
  });

  test('cross-account reads are 404 JOB_NOT_FOUND', async () => {
    const job: any = await (await post({ uploadKey: song })).json();
    const other = await s.newAccount();
    const res = await s.api(`/v1/jobs/${job.id}`, { key: other.key });
    expect(res.status).toBe(404);
    expect(await code(res)).toBe('JOB_NOT_FOUND');
    expect(await code(await s.api('/v1/jobs/job_unknown', { key: user.key }))).toBe('JOB_NOT_FOUND');
    const list: any = await (await s.api('/v1/jobs', { key: other.key })).json();
    expect(list.jobs.map((j: any) => j.id)).not.toContain(job.id);
  });

  test('pagination, newest first, status filter, exact list fields', async () => {
    const pager = await s.newAccount(100);
    const up = await uploadFile(s, pager.key, clip, 'p.wav');
    const ids: string[] = [];
    for (let i = 0; i < 5; i++)
      ids.push(((await (await post({ uploadKey: up, outputType: 'VOCALS' }, pager.key)).json()) as any).id);
    const page1: any = await (await s.api('/v1/jobs?limit=2', { key: pager.key })).json();
    expect(page1.pagination).toEqual({ total: 5, limit: 2, offset: 0, hasMore: true });
    expect(page1.jobs.map((j: any) => j.id)).toEqual([ids[4], ids[3]]);
    expect(Object.keys(page1.jobs[0]).sort()).toEqual([
      'completedAt',
      'createdAt',
      'creditsCharged',
      'errorMessage',
      'id',
      'input',
      'options',
      'progress',
      'status',
    ]);
    expect(Object.keys(page1.jobs[0].input).sort()).toEqual(['durationSeconds', 'fileName']);
    const page3: any = await (await s.api('/v1/jobs?limit=2&offset=4', { key: pager.key })).json();
    expect(page3.pagination).toEqual({ total: 5, limit: 2, offset: 4, hasMore: false });
    expect(page3.jobs.map((j: any) => j.id)).toEqual([ids[0]]);
    const done: any = await (await s.api('/v1/jobs?status=COMPLETED', { key: pager.key })).json();
    expect(done.pagination.total).toBe(0);
    expect(await code(await s.api('/v1/jobs?limit=101', { key: pager.key }))).toBe('VALIDATION_ERROR');
    expect(await code(await s.api('/v1/jobs?status=DONE', { key: pager.key }))).toBe('VALIDATION_ERROR');
    expect(await code(await s.api('/v1/jobs?offset=-1', { key: pager.key }))).toBe('VALIDATION_ERROR');
  });

  test('sourceUrl on a loopback server is fetched when the operator allows private URLs', async () => {
    const open = await startTestServer(dialect, { ALLOW_PRIVATE_URLS: 'true' });
    try {
      const u = await open.newAccount();
      const res = await open.api('/v1/jobs', { key: u.key, method: 'POST', json: { sourceUrl: fileUrl } });
      expect(res.status).toBe(201);
      const job: any = await res.json();
      expect(job.input).toMatchObject({ fileName: 'remote song.wav', durationSeconds: 6 });
      expect(job.creditsRequired).toBe(6);
      // Issue 41: a fetched file whose job is refused (402 here) is not kept: no job refers to it.
      const poor = await open.newAccount(0);
      const refused = await open.api('/v1/jobs', { key: poor.key, method: 'POST', json: { sourceUrl: fileUrl } });
      expect(refused.status).toBe(402);
      expect(await open.rt.blobs.listFolders(`sources/${poor.id}/`)).toEqual([]);
      expect(await open.rt.blobs.listFolders(`sources/${u.id}/`)).toHaveLength(1);
    } finally {
      await open.close();
    }
  });
});
