import { execFile } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { Capabilities, DeliveryList, JobsPage, JobView, LedgerPage, Overview } from '../src/contract/dashboard.ts';
import { JobDetail } from '../src/contract/jobs.ts';
import { getBalanceSeconds } from '../src/store/credits.ts';
import { findJob } from '../src/store/jobs.ts';
import { listJobDeliveries } from '../src/store/webhook-deliveries.ts';
import { dialects } from './helpers/db.ts';
import { BEHIND_LOCAL_PROXY, type DashboardClient, newDashboardUser, signedIn } from './helpers/dashboard.ts';
import { getJson } from './helpers/dashboard.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { readStoredZip } from './helpers/zip.ts';

const run = promisify(execFile);
const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

/**
 * The dashboard's job actions against the real server and database: what the New-job form is
 * offered, cancel (dashboard and /v1), rename and search, delete with the files, the ZIP of every
 * output, queue position and credits held, and the words for deliveries and the ledger.
 */
describe.each(dialects)('dashboard API: job actions (%s)', (dialect) => {
  let s: TestServer;
  let dir: string;
  let wav: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'stemforge-actions-'));
    wav = join(dir, 'clip.wav');
    [s] = await Promise.all([
      // No workers run in this server: jobs stay PENDING until a test settles them.
      startTestServer(dialect, { ...BEHIND_LOCAL_PROXY, ALLOW_PRIVATE_URLS: 'true' }),
      run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=6', wav]),
    ]);
  });
  afterAll(async () => {
    await s?.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** A PENDING stem job made through the dashboard (upload grant, PUT, create). */
  const pendingJob = async (c: DashboardClient, fileName = 'clip.wav') => {
    const grant = (await (await c.call('POST', '/uploads', { filename: fileName })).json()) as Record<string, string>;
    const put = await fetch(`${s.base}${grant.uploadUrl}`, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType! },
      body: await readFile(wav),
    });
    expect(put.status).toBe(200);
    const res = await c.call('POST', '/jobs', {
      kind: 'stem',
      uploadKey: grant.uploadKey,
      fileName,
      outputType: 'VOCALS',
      quality: 'FAST',
    });
    expect(res.status).toBe(201);
    return ((await res.json()) as { id: string }).id;
  };

  test('capabilities: six stems is not offered without its model; every tier of the shipped model; limits and balance', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const caps = await getJson(c, '/capabilities', Capabilities);
    const byType = Object.fromEntries(caps.outputTypes.map((t) => [t.outputType, t]));
    expect(byType.SIX_STEMS).toMatchObject({ installed: false, model: 'htdemucs_6s', tiers: ['BEST'] });
    expect(byType.FOUR_STEMS).toMatchObject({ installed: true, tiers: ['FAST', 'BALANCED', 'BEST'] });
    expect(byType.FOUR_STEMS!.stems).toEqual(['vocals', 'drums', 'bass', 'other']);
    expect(caps.limits).toEqual({
      maxFileSizeBytes: s.rt.config.limits.maxFileSizeBytes,
      maxDurationSeconds: s.rt.config.limits.maxDurationSeconds,
      minDurationSeconds: s.rt.config.limits.minDurationSeconds,
    });
    expect(caps.balanceSeconds).toBe(300);
    expect(caps.creditsPerAudioSecond).toBe(1);
    expect(caps.pace.FAST).toMatchObject({ measuredJobs: 0 });
    expect(caps.pace.FAST!.perAudioSecond).toBeGreaterThan(0);
    expect(caps.workerConcurrency).toBe(s.rt.config.workers.concurrency);
    // What the form offers is what the API accepts: the refused combination is the one left out.
    const refused = await c.call('POST', '/jobs', {
      kind: 'stem',
      sourceUrl: 'https://example.com/a.mp3',
      outputType: 'SIX_STEMS',
    });
    expect((await errorOf(refused)).code).toBe('MODEL_NOT_INSTALLED');
  });

  test('a pending job shows its queue position, time left and credits held; cancel releases them, twice is the same answer, a finished job is 409', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const first = await pendingJob(c, 'first.wav');
    const second = await pendingJob(c, 'second.wav');
    const page = await getJson(c, '/jobs', JobsPage);
    const row = (id: string) => page.jobs.find((j) => j.id === id)!;
    // Other tests' jobs may wait ahead in the shared queue: positions are relative.
    expect(row(second).queuePosition).toBe(row(first).queuePosition! + 1);
    expect(row(first)).toMatchObject({ status: 'PENDING', phase: 'queued', creditsHeld: 6 });
    expect(row(first).secondsLeft).toBeGreaterThan(0);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(288);

    const res = await c.call('POST', `/jobs/${first}/cancel`);
    expect(res.status).toBe(200);
    const cancelled = JobView.parse(await res.json());
    expect(cancelled).toMatchObject({
      status: 'FAILED',
      phase: 'cancelled',
      errorCode: 'JOB_CANCELLED',
      creditsHeld: 0,
      creditsCharged: 0,
      queuePosition: null,
    });
    expect(cancelled.expiresAt).not.toBeNull();
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(294);
    const ledger = await getJson(c, '/ledger?limit=1', LedgerPage);
    expect(ledger.entries[0]).toMatchObject({ type: 'RELEASE', seconds: 6, jobId: first, jobTitle: 'first.wav' });
    // The second moved up behind whatever else waits.
    const after = (await getJson(c, '/jobs', JobsPage)).jobs.find((j) => j.id === second)!;
    expect(after.queuePosition).toBe(row(second).queuePosition! - 1);

    // Again: the same answer, nothing released twice.
    expect((await c.call('POST', `/jobs/${first}/cancel`)).status).toBe(200);
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(294);

    const { job: done } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    const refused = await c.call('POST', `/jobs/${done.id}/cancel`);
    expect(refused.status).toBe(409);
    expect(await errorOf(refused)).toMatchObject({
      code: 'JOB_NOT_CANCELLABLE',
      message: expect.stringMatching(/completed/),
    });
  });

  test('POST /v1/jobs/{id}/cancel: the job detail, FAILED with phase cancelled; 409 in the contract body; another account is 404', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const id = await pendingJob(c);
    const stranger = await s.newAccount();
    const hidden = await s.api(`/v1/jobs/${id}/cancel`, { key: stranger.key, method: 'POST' });
    expect(hidden.status).toBe(404);
    expect((await errorOf(hidden)).code).toBe('JOB_NOT_FOUND');

    const res = await s.api(`/v1/jobs/${id}/cancel`, { key: user.key, method: 'POST' });
    expect(res.status).toBe(200);
    const detail = JobDetail.parse(await res.json());
    expect(detail).toMatchObject({
      id,
      status: 'FAILED',
      progressPhase: 'cancelled',
      errorDetails: { code: 'JOB_CANCELLED', message: expect.stringMatching(/cancelled/) },
      creditsCharged: 0,
    });
    expect(await getBalanceSeconds(s.rt.db, user.id)).toBe(300);
    // A job of another kind is not this resource's.
    expect((await s.api(`/v1/denoise-jobs/${id}/cancel`, { key: user.key, method: 'POST' })).status).toBe(404);

    const { job: failed } = await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    const refused = await s.api(`/v1/jobs/${failed.id}/cancel`, { key: user.key, method: 'POST' });
    expect(refused.status).toBe(409);
    const body = (await refused.json()) as { error: Record<string, unknown> };
    expect(body.error).toMatchObject({ code: 'JOB_NOT_CANCELLABLE', status: 'FAILED' });
    expect(typeof body.error.message).toBe('string');
  });

  test('a cancelled job sends job.failed to a subscribed webhook', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const hook = await c.call('POST', '/webhooks', { url: 'http://127.0.0.1:9/cancelled' });
    expect(hook.status).toBe(201);
    const id = await pendingJob(c);
    await c.call('POST', `/jobs/${id}/cancel`);
    expect((await listJobDeliveries(s.rt.db, id)).map((d) => [d.event, d.status])).toEqual([['job.failed', 'pending']]);
  });

  test('rename shows everywhere and is searchable; an empty name goes back to the file name; control characters are refused', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const { job: a } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      input: { fileName: 'Take 1.wav' },
    });
    const { job: b } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      input: { fileName: 'Other.wav' },
    });
    const renamed = await c.call('PATCH', `/jobs/${a.id}`, { name: '  Bridge <b>idea</b>  ' });
    expect(renamed.status).toBe(200);
    expect(JobView.parse(await renamed.json()).title).toBe('Bridge <b>idea</b>');
    const search = async (q: string) =>
      (await getJson(c, `/jobs?q=${encodeURIComponent(q)}`, JobsPage)).jobs.map((j) => j.title);
    expect(await search('bridge')).toEqual(['Bridge <b>idea</b>']);
    expect(await search('IDEA bridge')).toEqual(['Bridge <b>idea</b>']);
    expect(await search('other')).toEqual(['Other.wav']);
    expect(await search('take')).toEqual([]);
    const page = await getJson(c, '/jobs?q=wav&limit=1', JobsPage);
    expect(page.pagination).toMatchObject({ total: 1, hasMore: false });
    expect(page.jobs[0]!.id).toBe(b.id);

    expect((await c.call('PATCH', `/jobs/${a.id}`, { name: 'a\u0007b' })).status).toBe(400);
    const reset = JobView.parse(await (await c.call('PATCH', `/jobs/${a.id}`, { name: '' })).json());
    expect(reset.title).toBe('Take 1.wav');
    const stranger = await signedIn(s, await newDashboardUser(s));
    expect((await stranger.call('PATCH', `/jobs/${a.id}`, { name: 'mine' })).status).toBe(404);
    expect((await findJob(s.rt.db, a.id))!.name).toBeNull();
  });

  test('delete removes the job and its files; a running job must be cancelled first; its ledger lines stay', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const bytes = Buffer.from('not really audio, but stored bytes');
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED', outputs: { vocals: bytes } });
    const key = `jobs/${job.id}/vocals.mp3`;
    expect(await s.rt.blobs.stat(key)).not.toBeNull();
    const stranger = await signedIn(s, await newDashboardUser(s));
    expect((await stranger.call('DELETE', `/jobs/${job.id}`)).status).toBe(404);
    expect((await c.call('DELETE', `/jobs/${job.id}`)).status).toBe(204);
    expect(await s.rt.blobs.stat(key)).toBeNull();
    expect((await c.call('GET', `/jobs/${job.id}`)).status).toBe(404);

    const running = await pendingJob(c);
    const refused = await c.call('DELETE', `/jobs/${running}`);
    expect(refused.status).toBe(409);
    expect((await errorOf(refused)).code).toBe('JOB_STILL_RUNNING');
    await c.call('POST', `/jobs/${running}/cancel`);
    expect((await c.call('DELETE', `/jobs/${running}`)).status).toBe(204);
    const ledger = await getJson(c, '/ledger', LedgerPage);
    expect(ledger.entries.filter((e) => e.jobId === running).map((e) => [e.type, e.jobTitle])).toEqual([
      ['RELEASE', null],
      ['HOLD', null],
    ]);
    expect((await getJson(c, '/overview', Overview)).balance.balanceSeconds).toBe(300);
  });

  test('the ZIP holds every output byte for byte, named after the song; before completion it is 409', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const outputs = { vocals: Buffer.from('vocals bytes'), drums: Buffer.alloc(70_000, 7), bass: Buffer.from('bass') };
    const { job } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      input: { fileName: 'Café Song.wav' },
      outputs,
    });
    const res = await c.call('GET', `/jobs/${job.id}/outputs.zip`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/zip');
    expect(res.headers.get('content-disposition')).toContain("filename*=UTF-8''Caf%C3%A9%20Song.zip");
    const zip = Buffer.from(await res.arrayBuffer());
    expect(Number(res.headers.get('content-length'))).toBe(zip.length);
    const entries = readStoredZip(zip);
    expect([...entries.keys()].sort()).toEqual(['song-bass.mp3', 'song-drums.mp3', 'song-vocals.mp3']);
    expect(entries.get('song-drums.mp3')!.equals(outputs.drums)).toBe(true);
    expect(entries.get('song-vocals.mp3')!.equals(outputs.vocals)).toBe(true);

    const pending = await pendingJob(c);
    const early = await c.call('GET', `/jobs/${pending}/outputs.zip`);
    expect(early.status).toBe(409);
    expect((await errorOf(early)).code).toBe('JOB_NOT_COMPLETED');
    const stranger = await signedIn(s, await newDashboardUser(s));
    expect((await stranger.call('GET', `/jobs/${job.id}/outputs.zip`)).status).toBe(404);
  });

  test('deliveries say what happened: a 500 is failed, a 2xx delivered, a test event is listed as a test', async () => {
    const user = await newDashboardUser(s, 300);
    const c = await signedIn(s, user);
    const created = (await (await c.call('POST', '/webhooks', { url: 'http://127.0.0.1:9/hook' })).json()) as {
      id: string;
    };
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED', input: { fileName: 'Named.wav' } });
    const [delivery] = await listJobDeliveries(s.rt.db, job.id);
    // Settled the way the dispatcher settles an attempt answered 500.
    await s.rt.db
      .updateTable('webhook_deliveries')
      .set({ status: 'done', response_status: 500, error: 'HTTP 500' })
      .where('id', '=', delivery!.id)
      .execute();
    const test = await c.call('POST', `/webhooks/${created.id}/test`);
    expect(test.status).toBe(200);
    const list = await getJson(c, `/webhooks/${created.id}/deliveries`, DeliveryList);
    expect(list.deliveries.map((d) => [d.event, d.outcome, d.jobId, d.jobTitle])).toEqual([
      ['test', 'failed', null, null],
      ['job.completed', 'failed', job.id, 'Named.wav'],
    ]);
    await s.rt.db
      .updateTable('webhook_deliveries')
      .set({ response_status: 204, error: null })
      .where('id', '=', delivery!.id)
      .execute();
    const again = await getJson(c, `/webhooks/${created.id}/deliveries`, DeliveryList);
    expect(again.deliveries[1]!.outcome).toBe('delivered');
  });
});
