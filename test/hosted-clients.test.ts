import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { createHmac } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import type { TestServer } from './helpers/server.ts';
import { startImportService, stopImportService } from './helpers/imports.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { sharedPath } from '../support/shared.ts';
import type { Workers } from '../src/worker/start.ts';
import { WebhookPayload } from '../src/contract/webhooks.ts';

/**
 * Request shapes the hosted service's public clients send (its TypeScript MCP server, Python SDK,
 * Go CLI and n8n node: read, not copied), replayed against Stemforge through both base paths and
 * both route families. The video and track sites are a FAKE yt-dlp (they cannot be reached from
 * here); the separation is real.
 */
describe('hosted-service clients, unmodified (fake yt-dlp, real separation)', () => {
  let s: TestServer;
  let workers: Workers;
  let user: { id: string; key: string };
  let rx: Receiver;

  beforeAll(async () => {
    rx = await startReceiver();
    ({ s, workers, user } = await startImportService({ WORKER_CONCURRENCY: '1', ALLOW_PRIVATE_URLS: 'true' }));
  });
  afterAll(async () => {
    await stopImportService({ s, workers });
    await rx?.close();
  });

  /** What the hosted clients do: JSON with a Bearer key against `<base>/<path>`. */
  const call = (base: '/v1' | '/api/v1', path: string, init: { method?: string; json?: unknown; key?: string } = {}) =>
    s.api(`${base}${path}`, { key: init.key ?? user.key, method: init.method ?? 'GET', json: init.json });

  const until = async (path: string, done: (job: any) => boolean, timeoutMs = 240_000) => {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const job: any = await (await call('/api/v1', path)).json();
      if (done(job)) return job;
      if (Date.now() > deadline) throw new Error(`${path} stayed ${job.status}`);
      await new Promise((r) => setTimeout(r, 300));
    }
  };

  const verify = (raw: Buffer, signature: string | string[] | undefined, secret: string) =>
    signature === `sha256=${createHmac('sha256', secret).update(raw).digest('hex')}`;

  test('the whole API answers under /api/v1 as under /v1, signed upload URLs included', async () => {
    for (const base of ['/v1', '/api/v1'] as const) {
      const balance = await call(base, '/balance');
      expect(balance.status).toBe(200);
      expect(await balance.json()).toMatchObject({ balanceSeconds: 300 });
    }
    const grant: any = await (await call('/api/v1', '/upload', { method: 'POST', json: { filename: 'a.wav' } })).json();
    // A client that rewrites every URL to the hosted base path still reaches the signed PUT.
    const hostedPut = grant.uploadUrl.replace('/v1/', '/api/v1/');
    const put = await fetch(hostedPut, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: await readFile(sharedPath('audio', 'musdb-falcon69', 'mixture.wav')),
    });
    expect(put.status).toBe(200);
    expect((await call('/api/v1', '/nope')).status).toBe(404);
    expect(((await (await call('/api/v1', '/nope')).json()) as any).error.code).toBe('NOT_FOUND');
  });

  test('POST /youtube-jobs {youtubeUrl, callbackUrl, metadata}: one job under both names, callback signed once', async () => {
    const res = await call('/api/v1', '/youtube-jobs', {
      method: 'POST',
      json: {
        youtubeUrl: 'https://youtu.be/FalconVid01',
        quality: 'FAST',
        outputFormat: 'MP3',
        metadata: { customer: 42 },
        callbackUrl: rx.url('/cb-youtube'),
        clientOnlyField: 'ignored', // unknown fields are ignored (docs/api-compat.md)
      },
    });
    expect(res.status).toBe(201);
    const created: any = await res.json();
    expect(created).toMatchObject({
      status: 'PENDING',
      videoId: 'FalconVid01',
      youtubeUrl: 'https://www.youtube.com/watch?v=FalconVid01',
      outputs: ['vocals', 'instrumental'],
      callbackSecret: expect.stringMatching(/^whsec_/),
    });

    const done = await until(`/youtube-jobs/${created.id}`, (j) => j.status === 'COMPLETED' || j.status === 'FAILED');
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progress: 100,
      progressPhase: 'completed',
      errorDetails: null,
      youtubeUrl: 'https://www.youtube.com/watch?v=FalconVid01',
      metadata: { customer: 42 },
    });
    expect(Object.keys(done.outputs).sort()).toEqual(['fullAudio', 'instrumental', 'vocals']);
    // The same job under the contract's name, and in both lists.
    expect(((await (await call('/v1', `/video-jobs/${created.id}`)).json()) as any).id).toBe(created.id);
    for (const path of ['/video-jobs', '/youtube-jobs']) {
      const list: any = await (await call('/v1', path)).json();
      expect(list.jobs.map((j: any) => j.id)).toContain(created.id);
    }

    const [hook] = await rx.waitFor('/cb-youtube', 1, 30_000);
    expect(verify(hook!.raw, hook!.headers['x-webhook-signature'], created.callbackSecret)).toBe(true);
    const payload = WebhookPayload.parse(JSON.parse(hook!.raw.toString('utf8')));
    expect(payload).toMatchObject({
      event: 'job.completed',
      data: { jobId: created.id, type: 'youtube', metadata: { customer: 42 } },
    });
    // Exactly once, and the callback is no account webhook.
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.at('/cb-youtube')).toHaveLength(1);
    expect(((await (await call('/v1', '/webhooks')).json()) as any).webhooks).toEqual([]);
  });

  test('POST /soundcloud-jobs {soundcloudUrl, outputDir}: note, soundcloudUrl, and data.type soundcloud', async () => {
    const hook = await call('/v1', '/webhooks', {
      method: 'POST',
      json: { url: rx.url('/account-hook'), events: ['job.completed'] },
    });
    const { id: hookId, secret } = (await hook.json()) as any;
    const res = await call('/v1', '/soundcloud-jobs', {
      method: 'POST',
      json: { soundcloudUrl: 'https://soundcloud.com/fake-artist/falcon-track', outputDir: '/home/me/stems' },
    });
    expect(res.status).toBe(201);
    const created: any = await res.json();
    expect(created.note).toMatch(/vocals \+ instrumental, MP3, BEST/);
    expect(created.soundcloudUrl).toBe('https://soundcloud.com/fake-artist/falcon-track');
    expect(created.callbackSecret).toBeUndefined();
    const done = await until(
      `/soundcloud-jobs/${created.id}`,
      (j) => j.status !== 'PENDING' && j.status !== 'PROCESSING',
    );
    expect(done).toMatchObject({
      status: 'COMPLETED',
      progressPhase: 'completed',
      soundcloudUrl: created.soundcloudUrl,
    });
    const [delivery] = await rx.waitFor('/account-hook', 1, 30_000);
    expect(verify(delivery!.raw, delivery!.headers['x-webhook-signature'], secret)).toBe(true);
    expect(JSON.parse(delivery!.raw.toString('utf8')).data).toMatchObject({ jobId: created.id, type: 'soundcloud' });
    expect((await call('/v1', `/webhooks/${hookId}`, { method: 'DELETE' })).status).toBe(200);
  });

  test('a failed import carries errorDetails with a code; a denoise callbackUrl and a private one are refused', async () => {
    const res = await call('/v1', '/youtube-jobs', {
      method: 'POST',
      json: { youtubeUrl: 'https://youtu.be/gonevideo00' },
    });
    // Unavailable videos are refused at creation (metadata first), with the contract's error body.
    expect(res.status).toBe(404);
    expect(((await res.json()) as any).error.code).toBe('VIDEO_NOT_FOUND');

    const denoise = await call('/v1', '/denoise-jobs', {
      method: 'POST',
      json: {
        inputFileName: 'a.wav',
        inputFilePath: 'upl_x',
        inputFileSize: 1,
        durationSeconds: 6,
        callbackUrl: rx.url('/never'),
      },
    });
    expect(denoise.status).toBe(400);
    expect(((await denoise.json()) as any).error).toMatchObject({ code: 'VALIDATION_ERROR' });
  });

  test('job reads: ETag + 304, Retry-After while running, and their own budget beside the 60/minute', async () => {
    const created: any = await (
      await call('/v1', '/youtube-jobs', { method: 'POST', json: { youtubeUrl: 'FalconVid01', quality: 'FAST' } })
    ).json();
    const first = await call('/v1', `/video-jobs/${created.id}`);
    const etag = first.headers.get('etag');
    expect(etag).toMatch(/^W\/"/);
    if (((await first.json()) as any).status !== 'COMPLETED')
      expect(Number(first.headers.get('retry-after'))).toBeGreaterThanOrEqual(2);
    const again = await s.api(`/v1/video-jobs/${created.id}`, { key: user.key, headers: { 'if-none-match': etag! } });
    // Unchanged -> 304 without a body; changed meanwhile -> 200 with a new ETag.
    if (again.status === 304) expect(await again.text()).toBe('');
    else expect(again.headers.get('etag')).not.toBe(etag);
    const pollLimit = Number(first.headers.get('x-ratelimit-limit'));
    const otherLimit = Number((await call('/v1', '/balance')).headers.get('x-ratelimit-limit'));
    expect(pollLimit).toBe(otherLimit * 10);
    await until(`/youtube-jobs/${created.id}`, (j) => j.status === 'COMPLETED');
  });
});
