import { afterAll, afterEach, assert, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { deliverOne, startWebhookDispatcher, type WebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { verifySignature } from '../src/webhooks/sign.ts';
import { WebhookPayload } from '../src/contract/webhooks.ts';
import { enableWebhook, findWebhook } from '../src/store/webhooks.ts';
import { listJobDeliveries, listPendingDeliveries } from '../src/store/webhook-deliveries.ts';

describe.each(dialects)('webhook dispatcher (%s)', (dialect) => {
  let s: TestServer;
  let rx: Receiver;
  const running: WebhookDispatcher[] = [];
  beforeAll(async () => {
    rx = await startReceiver();
    s = await startTestServer(dialect, {
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '500',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterEach(async () => {
    for (const d of running.splice(0)) await d.stop();
  });
  afterAll(async () => {
    await s?.close();
    await rx?.close();
  });

  const dispatcher = (opts = {}) => {
    const d = startWebhookDispatcher(s.rt, { pollMs: 50, ...opts });
    running.push(d);
    return d;
  };
  /** One dispatcher run to completion: started, drained, stopped (so none is left polling). */
  const deliverAll = async (opts = {}) => {
    const d = dispatcher(opts);
    await d.drain();
    await d.stop();
  };
  const hook = async (key: string, path: string, events?: string[]) => {
    const res = await s.api('/v1/webhooks', {
      key,
      method: 'POST',
      json: { url: rx.url(path), ...(events ? { events } : {}) },
    });
    expect(res.status).toBe(201);
    return (await res.json()) as { id: string; secret: string };
  };
  const listed = async (key: string, id: string) =>
    ((await (await s.api('/v1/webhooks', { key })).json()) as any).webhooks.find((w: any) => w.id === id);

  test('job.completed: signed over the raw bytes, contract headers and body, output URLs valid while the outputs live', async () => {
    const user = await s.newAccount();
    const wh = await hook(user.key, `/signed-${dialect}`);
    const audio = Buffer.from('ID3 not really an mp3 but bytes to download');
    const metadata = { order: 'Ünïcødé “quotes” </script>', n: 42 };
    const { job, deliveries } = await commitFinishedJob(s.rt, user.id, {
      outcome: 'COMPLETED',
      outputs: { vocals: audio },
      metadata,
    });
    expect(deliveries).toBe(1);
    await deliverAll();

    const [req] = await rx.waitFor(`/signed-${dialect}`, 1);
    assert(req, 'no webhook request received');
    expect(rx.at(`/signed-${dialect}`)).toHaveLength(1);
    expect(req.method).toBe('POST');
    expect(req.headers['content-type']).toBe('application/json');
    expect(req.headers['user-agent']).toBe('Stemforge-Webhooks/1.0');
    expect(req.headers['x-webhook-event']).toBe('job.completed');
    expect(req.headers['x-webhook-id']).toBe(wh.id);
    expect(req.headers['x-webhook-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(verifySignature(req.raw, wh.secret, req.headers['x-webhook-signature'])).toBe(true);
    expect(verifySignature(req.raw, `${wh.secret}x`, req.headers['x-webhook-signature'])).toBe(false);
    // A re-serialisation is not what was signed when the text differs byte for byte (escapes).
    const tampered = Buffer.from(req.raw.toString('utf8').replace('"n":42', '"n":43'));
    expect(verifySignature(tampered, wh.secret, req.headers['x-webhook-signature'])).toBe(false);

    const body = WebhookPayload.parse(JSON.parse(req.raw.toString('utf8')));
    expect(body.event).toBe('job.completed');
    expect(Date.parse(body.timestamp)).toBeGreaterThanOrEqual(Date.parse(job.completed_at!));
    expect(body.data).toMatchObject({
      jobId: job.id,
      status: 'COMPLETED',
      input: { fileName: 'song.wav', durationSeconds: 7, fileSizeBytes: 1_058_444 },
      options: { outputType: 'VOCALS', quality: 'FAST', outputFormat: 'MP3' },
      creditsCharged: 7,
      errorMessage: null,
      createdAt: job.created_at,
      completedAt: job.completed_at,
      metadata,
    });
    expect(body.data.type).toBeUndefined();
    const vocals = body.data.outputs?.vocals;
    assert(vocals, 'no vocals output in the webhook');
    expect(Object.keys(body.data.outputs!)).toEqual(['vocals']);
    // Issue 41: signed when the job ended, valid until its outputs expire (the body is stored once
    // and sent as it is, so a delayed or repeated delivery still carries working links).
    expect(vocals.expiresAt.slice(0, 16)).toBe(job.expires_at!.slice(0, 16));
    expect(Date.parse(vocals.expiresAt) - Date.now()).toBeGreaterThan(3600_000);
    const download = await fetch(vocals.url);
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(audio);

    const [row] = await listJobDeliveries(s.rt.db, job.id);
    expect(row).toMatchObject({ status: 'done', response_status: 200, error: null });
    expect(await listed(user.key, wh.id)).toMatchObject({ failCount: 0, lastError: null, isActive: true });
    expect((await listed(user.key, wh.id)).lastCalledAt).not.toBeNull();
  });

  test('job.failed, video and track payloads; denoise jobs emit nothing', async () => {
    const user = await s.newAccount();
    const p = `/kinds-${dialect}`;
    await hook(user.key, p);
    const failed = await commitFinishedJob(s.rt, user.id, {
      outcome: 'FAILED',
      errorMessage: 'the audio could not be decoded',
    });
    const video = await commitFinishedJob(s.rt, user.id, {
      kind: 'video',
      outcome: 'COMPLETED',
      outputs: { fullAudio: Buffer.from('a'), vocals: Buffer.from('v'), instrumental: Buffer.from('i') },
      input: {
        videoId: 'dQw4w9WgXcQ',
        videoTitle: 'A video',
        videoDuration: 212,
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        videoThumbnail: 'https://i.ytimg.com/x.jpg',
        channelName: 'Chan',
      },
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
    });
    const track = await commitFinishedJob(s.rt, user.id, {
      kind: 'track',
      outcome: 'FAILED',
      input: {
        trackId: '12345',
        trackTitle: 'A track',
        trackDuration: 180,
        trackUrl: 'https://soundcloud.com/a/b',
        artistName: 'Art',
      },
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
    });
    const denoise = await commitFinishedJob(s.rt, user.id, { kind: 'denoise', outcome: 'COMPLETED' });
    expect(denoise.deliveries).toBe(0);
    await deliverAll();
    const bodies = (await rx.waitFor(p, 3)).map((r) => WebhookPayload.parse(JSON.parse(r.raw.toString('utf8'))));
    expect(rx.at(p)).toHaveLength(3);
    const byJob = new Map(bodies.map((b) => [b.data.jobId, b]));
    expect(byJob.get(failed.job.id)).toMatchObject({
      event: 'job.failed',
      data: { status: 'FAILED', outputs: null, errorMessage: 'the audio could not be decoded', creditsCharged: 0 },
    });
    const v = byJob.get(video.job.id)!;
    expect(v.data).toMatchObject({
      type: 'video',
      status: 'COMPLETED',
      input: {
        videoTitle: 'A video',
        videoDuration: 212,
        videoUrl: 'https://www.youtube.com/watch?v=dQw4w9WgXcQ',
        videoVideoId: 'dQw4w9WgXcQ',
      },
      options: { outputType: 'BOTH', quality: 'BEST', outputFormat: 'MP3' },
    });
    expect(Object.keys(v.data.outputs!).sort()).toEqual(['fullAudio', 'instrumental', 'vocals']);
    expect(byJob.get(track.job.id)!.data).toMatchObject({
      type: 'track',
      status: 'FAILED',
      input: { trackTitle: 'A track', trackDuration: 180, trackUrl: 'https://soundcloud.com/a/b', trackId: '12345' },
    });
    expect(byJob.has(denoise.job.id)).toBe(false);
  });

  test('subscriptions filter: each webhook gets only its events', async () => {
    const user = await s.newAccount();
    const onlyFailed = await hook(user.key, `/only-failed-${dialect}`, ['job.failed']);
    const onlyCompleted = await hook(user.key, `/only-completed-${dialect}`, ['job.completed']);
    const completed = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    const failed = await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    expect([completed.deliveries, failed.deliveries]).toEqual([1, 1]);
    await deliverAll();
    const f = rx.at(`/only-failed-${dialect}`);
    const c = rx.at(`/only-completed-${dialect}`);
    expect(
      f.map((r) => [r.headers['x-webhook-event'], r.headers['x-webhook-id'], JSON.parse(r.raw.toString()).data.jobId]),
    ).toEqual([['job.failed', onlyFailed.id, failed.job.id]]);
    expect(
      c.map((r) => [r.headers['x-webhook-event'], r.headers['x-webhook-id'], JSON.parse(r.raw.toString()).data.jobId]),
    ).toEqual([['job.completed', onlyCompleted.id, completed.job.id]]);
    // Another account's webhook hears nothing of these jobs.
    const other = await s.newAccount();
    await hook(other.key, `/other-${dialect}`);
    await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    await deliverAll();
    expect(rx.at(`/other-${dialect}`)).toHaveLength(0);
  });

  test('a slow receiver is a failure after WEBHOOK_TIMEOUT_MS and does not hold up other deliveries', async () => {
    const user = await s.newAccount();
    const slowPath = `/slow-${dialect}`;
    const fastPath = `/fast-${dialect}`;
    rx.on(slowPath, 'hang');
    const slow = await hook(user.key, slowPath);
    await hook(user.key, fastPath);
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    const started = Date.now();
    const d = dispatcher();
    await rx.waitFor(fastPath, 1);
    const fastAt = Date.now() - started;
    await d.drain();
    const elapsed = Date.now() - started;
    expect(fastAt).toBeLessThan(450); // delivered while the slow one was still waiting
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(5_000);
    expect(rx.at(slowPath)).toHaveLength(1);
    const w = await listed(user.key, slow.id);
    expect(w).toMatchObject({ failCount: 1, isActive: true, lastError: 'timeout after 500 ms' });
    const rows = await listJobDeliveries(s.rt.db, job.id);
    expect(rows.find((r) => r.webhook_id === slow.id)).toMatchObject({
      status: 'done',
      response_status: null,
      error: 'timeout after 500 ms',
    });
  });

  test('five consecutive failures disable the webhook and later events are skipped; a success resets; re-enable works', async () => {
    const user = await s.newAccount();
    const path = `/flaky-${dialect}`;
    const wh = await hook(user.key, path);
    rx.on(path, 500);
    for (let i = 0; i < 4; i++) await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    await deliverAll();
    expect(await listed(user.key, wh.id)).toMatchObject({ failCount: 4, isActive: true, lastError: 'HTTP 500' });

    rx.on(path, 204);
    await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    await deliverAll();
    // Success resets the count; lastError is kept as history until re-enabled.
    expect(await listed(user.key, wh.id)).toMatchObject({ failCount: 0, isActive: true, lastError: 'HTTP 500' });

    // Six events queued while the receiver is down: the fifth failure disables, the sixth is skipped.
    rx.on(path, 503);
    const jobs = [];
    for (let i = 0; i < 6; i++) jobs.push((await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' })).job);
    const before = rx.at(path).length;
    await deliverAll({ concurrency: 1 });
    expect(rx.at(path).length - before).toBe(5);
    expect(await listed(user.key, wh.id)).toMatchObject({ failCount: 5, isActive: false, lastError: 'HTTP 503' });
    expect((await listJobDeliveries(s.rt.db, jobs[5]!.id))[0]).toMatchObject({
      status: 'skipped',
      error: 'webhook inactive',
    });
    // While inactive, new events are not even queued for it.
    expect((await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' })).deliveries).toBe(0);

    expect(await enableWebhook(s.rt.db, wh.id)).toMatchObject({ isActive: true, failCount: 0, lastError: null });
    rx.on(path, 200);
    await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    await deliverAll();
    expect(rx.at(path).length - before).toBe(6);
    expect(await listed(user.key, wh.id)).toMatchObject({ failCount: 0, isActive: true, lastError: null });
  });

  test('racing dispatchers send each event once: the claim is atomic', async () => {
    const user = await s.newAccount();
    const path = `/race-${dialect}`;
    await hook(user.key, path);
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    // Two dispatchers that both read the row as pending before either claimed it.
    const [row] = (await listPendingDeliveries(s.rt.db, 100)).filter((r) => r.job_id === job.id);
    assert(row, 'no pending delivery for the job');
    const results = await Promise.all([deliverOne(s.rt, row), deliverOne(s.rt, row), deliverOne(s.rt, row)]);
    expect(results.sort()).toEqual(['not-claimed', 'not-claimed', 'sent']);
    expect(rx.at(path)).toHaveLength(1);

    // Many events, three polling dispatchers at once: every event arrives exactly once.
    const jobs = [];
    for (let i = 0; i < 12; i++)
      jobs.push((await commitFinishedJob(s.rt, user.id, { outcome: i % 2 ? 'FAILED' : 'COMPLETED' })).job.id);
    const ds = [dispatcher({ pollMs: 5 }), dispatcher({ pollMs: 5 }), dispatcher({ pollMs: 5 })];
    await rx.waitFor(path, 13);
    await Promise.all(ds.map((d) => d.drain()));
    await Promise.all(ds.map((d) => d.stop()));
    await new Promise((r) => setTimeout(r, 100));
    const got = rx.at(path).map((r) => JSON.parse(r.raw.toString()).data.jobId as string);
    expect(got.slice(1).sort()).toEqual([...jobs].sort());
  });

  test('deleting a webhook stops its deliveries, including ones already queued', async () => {
    const user = await s.newAccount();
    const path = `/deleted-${dialect}`;
    const wh = await hook(user.key, path);
    const keep = await hook(user.key, `/kept-${dialect}`);
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    expect((await s.api(`/v1/webhooks/${wh.id}`, { key: user.key, method: 'DELETE' })).status).toBe(200);
    const later = await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    expect(later.deliveries).toBe(1); // only the kept webhook
    await deliverAll();
    expect(rx.at(path)).toHaveLength(0);
    expect(rx.at(`/kept-${dialect}`)).toHaveLength(2);
    const rows = await listJobDeliveries(s.rt.db, job.id);
    expect(rows.find((r) => r.webhook_id === wh.id)).toMatchObject({ status: 'skipped', error: 'webhook deleted' });
    expect(rows.find((r) => r.webhook_id === keep.id)).toMatchObject({ status: 'done', response_status: 200 });
    expect((await findWebhook(s.rt.db, wh.id))!.fail_count).toBe(0);
  });

  test('a private address is refused at send time unless ALLOW_PRIVATE_URLS (connect-time guard)', async () => {
    const strict = await startTestServer(dialect, { WEBHOOK_TIMEOUT_MS: '500' });
    try {
      const account = await strict.newAccount();
      // Planted directly: the API would refuse this URL at creation on this server.
      const path = `/planted-${dialect}`;
      await strict.rt.db
        .insertInto('webhooks')
        .values({
          id: 'wh_planted',
          account_id: account.id,
          url: rx.url(path),
          events_json: '["job.completed"]',
          secret: 's',
          is_active: 1,
          fail_count: 0,
          last_error: null,
          last_called_at: null,
          created_at: new Date().toISOString(),
          deleted_at: null,
        })
        .execute();
      await commitFinishedJob(strict.rt, account.id, { outcome: 'COMPLETED' });
      const d = startWebhookDispatcher(strict.rt, { pollMs: 50 });
      await d.drain();
      await d.stop();
      expect(rx.at(path)).toHaveLength(0);
      const w = (await findWebhook(strict.rt.db, 'wh_planted'))!;
      expect(w.fail_count).toBe(1);
      expect(w.last_error).toMatch(/address not allowed/);
    } finally {
      await strict.close();
    }
  });
});
