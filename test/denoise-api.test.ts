import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readdir, readFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { trimClip, wavOfExactSize } from './helpers/denoise-clip.ts';
import { waitForJob } from './helpers/jobs.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { findUpload } from '../src/store/uploads.ts';
import type { Engines } from '../src/engines/engines.ts';

const MAX_BYTES = 1024 * 1024; // MAX_FILE_SIZE_MB=1

type ErrorBody = { error: { code: string; message: string; field?: string | null; [k: string]: unknown } };
const errorOf = async (res: Response) => ((await res.json()) as ErrorBody).error;

/**
 * The denoise API without running the network: multipart upload and its errors, job creation,
 * listing, reading, the download route's refusals, and the failure path. The engine is SIMULATED to
 * fail (a test of the failure path; the real DeepFilterNet3 runs in denoise-api-e2e.test.ts).
 */
describe.each(['sqlite', 'postgres'] as const)(
  'denoise API on %s: uploads, jobs, errors (engine simulated to fail)',
  (dialect) => {
    let s: TestServer;
    let workers: Workers | undefined;
    let user: { id: string; key: string };
    let clip: Buffer;
    let uploadKey: string;

    const form = (...files: Array<[field: string, body: Buffer | string, name?: string]>) => {
      const f = new FormData();
      for (const [field, body, name] of files) {
        if (name === undefined) f.append(field, String(body));
        else f.append(field, new Blob([body]), name);
      }
      return f;
    };
    const upload = (body: FormData | string, key = user.key, headers: Record<string, string> = {}) =>
      s.api('/v1/files/upload', { key, method: 'POST', body, headers });
    const create = (json: unknown, key = user.key) => s.api('/v1/denoise-jobs', { key, method: 'POST', json });
    const validJob = () => ({
      inputFileName: 'interview.wav',
      inputFilePath: uploadKey,
      inputFileSize: clip.length,
      durationSeconds: 6,
    });
    const uploadsOf = (accountId: string) =>
      s.rt.db.selectFrom('uploads').selectAll().where('account_id', '=', accountId).execute();
    /** Upload folders in the disk blob store, to prove a refused upload leaves no blob. */
    const storedUploads = async (accountId: string) => {
      const dir = join((s.rt.config.storage as { root: string }).root, 'objects', 'uploads', accountId);
      return existsSync(dir) ? (await readdir(dir)).sort() : [];
    };

    beforeAll(async () => {
      const failing = (): Engines => ({
        separate: async () => {
          throw new Error('not used');
        },
        denoise: async () => {
          throw new Error('simulated denoise engine failure');
        },
        analyze: async () => ({ bpm: null, key: null }),
        // Says it has DeepFilterNet3, so jobs are accepted and the failing engine is reached.
        hasModel: (name) => name === 'dfn3',
        close: async () => undefined,
      });
      s = await startTestServer(
        dialect,
        { MAX_FILE_SIZE_MB: '1', RATE_LIMIT_PER_MINUTE: '100000', JOB_MAX_ATTEMPTS: '1' },
        {},
        { engines: failing },
      );
      user = await s.newAccount(300);
      clip = await readFile(
        await trimClip(sharedPath('audio', 'denoise', 'noisy_snr0.wav'), join(s.dataDir, 'noisy6.wav'), 6),
      );
    });
    afterAll(async () => {
      await workers?.stop();
      await s?.close();
    });

    test('multipart upload stores the probed file and answers UploadedFile', async () => {
      const res = await upload(form(['file', clip, 'Interview take 1.wav']));
      expect(res.status).toBe(200);
      const body: any = await res.json();
      expect(body).toMatchObject({
        fileName: 'Interview take 1.wav',
        fileSizeBytes: clip.length,
        contentType: 'audio/wav',
      });
      expect(body.uploadKey).toMatch(/^upl_/);
      expect(body.durationSeconds).toBeGreaterThan(5.95);
      expect(body.durationSeconds).toBeLessThan(6.05);
      // Deleted one retention period (24 h by default) after the upload unless a job needs it.
      expect(Math.abs(Date.parse(body.expiresAt) - (Date.now() + 24 * 3600_000))).toBeLessThan(60_000);
      const row = await findUpload(s.rt.db, body.uploadKey);
      expect(row?.storage_key.startsWith(`uploads/${user.id}/${body.uploadKey}/`)).toBe(true);
      const stored = await s.rt.blobs.stat(row!.storage_key);
      expect(stored?.size).toBe(clip.length);
      uploadKey = body.uploadKey;
    });

    test('a file of exactly the size limit is accepted; one byte more is FILE_TOO_LARGE', async () => {
      const exact = wavOfExactSize(MAX_BYTES);
      const ok = await upload(form(['file', exact, 'exact.wav']));
      expect(ok.status).toBe(200);
      expect(((await ok.json()) as any).fileSizeBytes).toBe(MAX_BYTES);

      const before = (await uploadsOf(user.id)).length;
      const over = await upload(form(['file', Buffer.concat([exact, Buffer.from([0])]), 'over.wav']));
      expect(over.status).toBe(400);
      const err = await errorOf(over);
      expect(err.code).toBe('FILE_TOO_LARGE');
      expect(err.maxFileSizeBytes).toBe(MAX_BYTES);
      // A body far over the limit is refused from its Content-Length, unread.
      const huge = await upload(form(['file', Buffer.alloc(3 * MAX_BYTES, 1), 'huge.wav']));
      expect(huge.status).toBe(400);
      expect((await errorOf(huge)).code).toBe('FILE_TOO_LARGE');
      expect((await uploadsOf(user.id)).length).toBe(before);
    });

    test('form errors: no file, a text field named file, a wrong part name, two files, not multipart, no key', async () => {
      const before = (await uploadsOf(user.id)).length;
      const blobsBefore = await storedUploads(user.id);
      expect(blobsBefore.length).toBe(before);
      const cases: Array<[FormData | string, string, RegExp, Record<string, string>?]> = [
        [form(['note', 'hello']), 'VALIDATION_ERROR', /No file part named 'file'/],
        [form(['file', 'just text']), 'VALIDATION_ERROR', /no filename/],
        [form(['audio', clip, 'a.wav']), 'VALIDATION_ERROR', /must be named 'file' \(got 'audio'\)/],
        [form(['file', clip, 'a.wav'], ['file', clip, 'b.wav']), 'VALIDATION_ERROR', /exactly one file/],
        [form(['file', clip, 'a.wav'], ['other', clip, 'b.wav']), 'VALIDATION_ERROR', /exactly one file/],
        [
          form(...Array.from({ length: 25 }, (_, i) => [`f${i}`, 'x'] as [string, string]), ['file', clip, 'a.wav']),
          'VALIDATION_ERROR',
          /too many parts/,
        ],
        [
          '--x\r\nContent-Disposition: form-data; name="file"; filename="a.wav"\r\n\r\nRIFF',
          'VALIDATION_ERROR',
          /malformed/,
          { 'content-type': 'multipart/form-data; boundary=x' },
        ],
        [
          JSON.stringify({ file: 'a' }),
          'UNSUPPORTED_MEDIA_TYPE',
          /multipart\/form-data/,
          { 'content-type': 'application/json' },
        ],
        ['raw bytes', 'UNSUPPORTED_MEDIA_TYPE', /multipart\/form-data/, { 'content-type': 'audio/wav' }],
      ];
      for (const [body, code, message, headers] of cases) {
        const res = await upload(body, user.key, headers);
        const err = await errorOf(res);
        expect({ status: res.status, code: err.code }).toEqual({
          status: code === 'UNSUPPORTED_MEDIA_TYPE' ? 415 : 400,
          code,
        });
        expect(err.message).toMatch(message);
      }
      // Nothing of a refused upload stays: no row, no blob (the two-file case had stored its first file).
      expect((await uploadsOf(user.id)).length).toBe(before);
      expect(await storedUploads(user.id)).toEqual(blobsBefore);
      const anonymous = await s.api('/v1/files/upload', { method: 'POST', body: form(['file', clip, 'a.wav']) });
      expect(anonymous.status).toBe(401);
      expect((await errorOf(anonymous)).code).toBe('MISSING_API_KEY');
    });

    test('unsupported extension or content is UNSUPPORTED_FORMAT', async () => {
      const txt = await upload(form(['file', clip, 'notes.txt']));
      expect(txt.status).toBe(400);
      expect(await errorOf(txt)).toMatchObject({
        code: 'UNSUPPORTED_FORMAT',
        message: expect.stringContaining("'.txt'"),
      });
      const fake = await upload(form(['file', Buffer.from('this is not audio at all '.repeat(100)), 'fake.wav']));
      expect(fake.status).toBe(400);
      expect(await errorOf(fake)).toMatchObject({
        code: 'UNSUPPORTED_FORMAT',
        message: expect.stringContaining('not supported audio'),
      });
    });

    test('the OpenAPI document lists the upload and the denoise routes', async () => {
      const doc: any = await (await s.api('/v1/openapi.json')).json();
      expect(doc.paths['/v1/files/upload'].post.responses['200']).toBeTruthy();
      expect(doc.paths['/v1/files/upload'].post.responses['415'].description).toContain('UNSUPPORTED_MEDIA_TYPE');
      expect(Object.keys(doc.paths['/v1/denoise-jobs'])).toEqual(['post', 'get']);
      expect(doc.paths['/v1/denoise-jobs/{id}'].get).toBeTruthy();
      expect(doc.paths['/api/files/download-denoise/{id}'].get.responses['409'].description).toContain(
        'JOB_NOT_COMPLETED',
      );
    });

    test('create answers 200 and holds the MEASURED credits, whatever the client declared', async () => {
      const res = await create({ ...validJob(), durationSeconds: 1, inputFileSize: 10 });
      expect(res.status).toBe(200);
      const body: any = await res.json();
      expect(body).toMatchObject({ status: 'PENDING', outputFormat: 'MP3', durationSeconds: 6, creditsRequired: 6 });
      expect(body.jobId).toMatch(/^job_/);
      expect(body.id).toBe(body.jobId);
      expect(Date.parse(body.createdAt)).toBeGreaterThan(Date.now() - 60_000);
      expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300 - 6);

      const detail: any = await (await s.api(`/v1/denoise-jobs/${body.jobId}`, { key: user.key })).json();
      expect(detail).toEqual({
        id: body.jobId,
        jobId: body.jobId,
        status: 'PENDING',
        progress: 0,
        inputFileName: 'interview.wav',
        durationSeconds: 6,
        outputFormat: 'MP3',
        attenuationLimitDb: null,
        outputFilePath: null,
        downloadUrl: null,
        creditsCharged: 0,
        createdAt: body.createdAt,
        completedAt: null,
        expiresAt: null,
        errorMessage: null,
        progressPhase: 'queued',
        errorDetails: null,
      });
      // Not completed yet: the download route says so.
      const early = await s.api(`${s.base}/api/files/download-denoise/${body.jobId}`, { key: user.key });
      expect(early.status).toBe(409);
      expect(await errorOf(early)).toMatchObject({ code: 'JOB_NOT_COMPLETED', jobStatus: 'PENDING' });
    });

    test('an attenuation limit is stored with the job for the worker and shown on the job', async () => {
      // Its own account, so that the paging test below still counts only its own jobs.
      const other = await s.newAccount(300);
      const up: any = await (await upload(form(['file', clip, 'limit.wav']), other.key)).json();
      const job = { ...validJob(), inputFilePath: up.uploadKey };
      const body: any = await (await create({ ...job, attenuationLimitDb: 12 }, other.key)).json();
      const detail: any = await (await s.api(`/v1/denoise-jobs/${body.jobId}`, { key: other.key })).json();
      expect(detail.attenuationLimitDb).toBe(12);
      const row = await s.rt.db
        .selectFrom('jobs')
        .select('options_json')
        .where('id', '=', body.jobId)
        .executeTakeFirstOrThrow();
      expect(JSON.parse(row.options_json)).toMatchObject({ attenuationLimitDb: 12 });
      // 0 means "no limit", as upstream's atten_lim_db.
      const none: any = await (await create({ ...job, attenuationLimitDb: 0 }, other.key)).json();
      const d0: any = await (await s.api(`/v1/denoise-jobs/${none.jobId}`, { key: other.key })).json();
      expect(d0.attenuationLimitDb).toBeNull();
    });

    test('validation errors name the field; an unknown upload key is UPLOAD_NOT_FOUND', async () => {
      const cases: Array<[unknown, string]> = [
        [{ ...validJob(), inputFileName: undefined }, 'inputFileName'],
        [{ ...validJob(), inputFilePath: undefined }, 'inputFilePath'],
        [{ ...validJob(), inputFileSize: undefined }, 'inputFileSize'],
        [{ ...validJob(), durationSeconds: 'six' }, 'durationSeconds'],
        [{ ...validJob(), durationSeconds: 6.5 }, 'durationSeconds'],
        [{ ...validJob(), outputFormat: 'OGG' }, 'outputFormat'],
        [{ ...validJob(), attenuationLimitDb: -3 }, 'attenuationLimitDb'],
        [{ ...validJob(), attenuationLimitDb: 'much' }, 'attenuationLimitDb'],
        [{ ...validJob(), attenuationLimitDb: 101 }, 'attenuationLimitDb'],
      ];
      for (const [json, field] of cases) {
        const res = await create(json);
        expect(res.status).toBe(400);
        const err = await errorOf(res);
        expect(err.code).toBe('VALIDATION_ERROR');
        expect(err.field).toBe(field);
        expect(err.message).toContain(`'${field}'`);
      }
      const unknown = await create({ ...validJob(), inputFilePath: 'upl_doesnotexist' });
      expect(unknown.status).toBe(400);
      expect((await errorOf(unknown)).code).toBe('UPLOAD_NOT_FOUND');
      for (const q of ['page=0', 'limit=101', 'status=DONE']) {
        const res = await s.api(`/v1/denoise-jobs?${q}`, { key: user.key });
        expect(res.status).toBe(400);
        expect((await errorOf(res)).field).toBe(q.split('=')[0]);
      }
    });

    test('402 when the balance does not cover the measured duration', async () => {
      const poor = await s.newAccount(3);
      const up: any = await (await upload(form(['file', clip, 'short.wav']), poor.key)).json();
      const res = await create({ ...validJob(), inputFilePath: up.uploadKey }, poor.key);
      expect(res.status).toBe(402);
      expect(await errorOf(res)).toMatchObject({
        code: 'INSUFFICIENT_CREDITS',
        requiredSeconds: 6,
        purchaseUrl: expect.any(String),
      });
      expect(await getBalanceSeconds(s.rt.db, poor.id)).toBe(3);
      const list: any = await (await s.api('/v1/denoise-jobs', { key: poor.key })).json();
      expect(list.total).toBe(0);
    });

    test('list pages newest first, 1-based, with both paging shapes and a status filter', async () => {
      const ids: string[] = [];
      for (const format of ['WAV', 'FLAC', 'MP3', 'WAV']) {
        const body: any = await (await create({ ...validJob(), outputFormat: format })).json();
        ids.push(body.jobId);
      }
      const all = await s.rt.db
        .selectFrom('jobs')
        .select('id')
        .where('account_id', '=', user.id)
        .where('kind', '=', 'denoise')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .execute();
      expect(all.length).toBe(5);
      expect(all.slice(0, 4).map((r) => r.id)).toEqual([...ids].reverse());
      const page1: any = await (await s.api('/v1/denoise-jobs?limit=2', { key: user.key })).json();
      expect(page1.jobs.map((j: any) => j.jobId)).toEqual(all.slice(0, 2).map((r) => r.id));
      expect(page1.pagination).toEqual({ total: 5, page: 1, limit: 2, hasMore: true });
      expect([page1.total, page1.page, page1.limit]).toEqual([5, 1, 2]);
      const page3: any = await (await s.api('/v1/denoise-jobs?limit=2&page=3', { key: user.key })).json();
      expect(page3.jobs.map((j: any) => j.jobId)).toEqual([all[4]!.id]);
      expect(page3.pagination).toEqual({ total: 5, page: 3, limit: 2, hasMore: false });
      expect(page3.jobs[0]).toMatchObject({ status: 'PENDING', inputFileName: 'interview.wav', outputFormat: 'MP3' });
      const byDefault: any = await (await s.api('/v1/denoise-jobs', { key: user.key })).json();
      expect(byDefault.pagination).toEqual({ total: 5, page: 1, limit: 20, hasMore: false });
      const completed: any = await (await s.api('/v1/denoise-jobs?status=COMPLETED', { key: user.key })).json();
      expect(completed.total).toBe(0);
      // Stem jobs and denoise jobs are separate lists.
      const stems: any = await (await s.api('/v1/jobs', { key: user.key })).json();
      expect(stems.pagination.total).toBe(0);
    });

    test("another account's job, upload and download are not found", async () => {
      const other = await s.newAccount(300);
      const { rows } = await import('../src/store/jobs.ts').then((m) =>
        m.listJobs(s.rt.db, { accountId: user.id, kind: 'denoise', limit: 1, offset: 0 }),
      );
      const id = rows[0]!.id;
      for (const path of [
        `/v1/denoise-jobs/${id}`,
        `${s.base}/api/files/download-denoise/${id}`,
        '/v1/denoise-jobs/job_unknown',
      ]) {
        const res = await s.api(path, { key: other.key });
        expect(res.status).toBe(404);
        expect((await errorOf(res)).code).toBe('JOB_NOT_FOUND');
      }
      const stolen = await create({ ...validJob() }, other.key);
      expect(stolen.status).toBe(400);
      expect((await errorOf(stolen)).code).toBe('UPLOAD_NOT_FOUND');
      const noKey = await s.api(`${s.base}/api/files/download-denoise/${id}`);
      expect(noKey.status).toBe(401);
    });

    test('a failing engine fails the job with its reason, releases the credits, and the download says why', async () => {
      const balanceBefore = await getBalanceSeconds(s.rt.db, user.id);
      const held = ((await s.api('/v1/denoise-jobs', { key: user.key }).then((r) => r.json())) as any).total * 6;
      workers = await startWorkers(s.rt);
      const body: any = await (await create(validJob())).json();
      const { job } = await waitForJob(s, user.key, `/v1/denoise-jobs/${body.jobId}`, 60_000);
      expect(job.status).toBe('FAILED');
      expect(job.errorMessage).toBe('simulated denoise engine failure');
      expect(job.creditsCharged).toBe(0);
      expect(job.outputFilePath).toBeNull();
      const res = await s.api(`${s.base}/api/files/download-denoise/${body.jobId}`, { key: user.key });
      expect(res.status).toBe(409);
      const err = await errorOf(res);
      expect(err).toMatchObject({ code: 'JOB_NOT_COMPLETED', jobStatus: 'FAILED' });
      expect(err.message).toContain('simulated denoise engine failure');
      // Every job of the account failed: all holds (the earlier ones too) came back.
      const deadline = Date.now() + 30_000;
      while (Date.now() < deadline && (await getBalanceSeconds(s.rt.db, user.id)) !== balanceBefore + held)
        await new Promise((r) => setTimeout(r, 200));
      expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(balanceBefore + held);
    });
  },
);
