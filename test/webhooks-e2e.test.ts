import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { sharedPath } from '../support/shared.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import type { Engines } from '../src/engines/engines.ts';
import type { Config } from '../src/config.ts';
import { verifySignature } from '../src/webhooks/sign.ts';
import { WebhookPayload } from '../src/contract/webhooks.ts';

/** Real engines; separation fails on demand (a failing engine, for cheap job.failed events). */
let failSeparation = false;
const switchable = (config: Config): Engines => {
  const real = createEngines(config);
  return {
    ...real,
    separate: async (req) => {
      if (failSeparation) throw new Error('simulated inference failure');
      return real.separate(req);
    },
  };
};

describe('webhooks end to end: real jobs, real workers, real receiver', () => {
  let s: TestServer;
  let rx: Receiver;
  let workers: Workers;
  beforeAll(async () => {
    rx = await startReceiver();
    s = await startTestServer(
      'sqlite',
      {
        ALLOW_PRIVATE_URLS: 'true',
        JOB_MAX_ATTEMPTS: '1',
        RATE_LIMIT_PER_MINUTE: '100000',
        STEMFORGE_MODELS_DIR: sharedPath('models'),
      },
      {},
      { engines: switchable },
    );
    workers = await startWorkers(s.rt);
  });
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
    await rx?.close();
  });

  test('job.failed and job.completed arrive signed, matching the job as the API reports it', async () => {
    const user = await s.newAccount(300);
    const create = async (path: string, events?: string[]) =>
      (await (
        await s.api('/v1/webhooks', {
          key: user.key,
          method: 'POST',
          json: { url: rx.url(path), ...(events ? { events } : {}) },
        })
      ).json()) as {
        id: string;
        secret: string;
      };
    const all = await create('/all');
    const failedOnly = await create('/failed', ['job.failed']);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'falcon.wav');

    failSeparation = true;
    const doomed: any = await (
      await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST' },
      })
    ).json();
    const failed = (await waitForJob(s, user.key, `/v1/jobs/${doomed.id}`, 60_000)).job;
    expect(failed.status).toBe('FAILED');
    failSeparation = false;

    const created: any = await (
      await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey: upload, outputType: 'VOCALS', quality: 'FAST', metadata: { ref: 'e2e' } },
      })
    ).json();
    const completed = (await waitForJob(s, user.key, `/v1/jobs/${created.id}`)).job;
    expect(completed.status).toBe('COMPLETED');

    const [first, second] = await rx.waitFor('/all', 2);
    assert(first && second, 'two webhook requests expected');
    for (const req of [first, second]) {
      expect(verifySignature(req.raw, all.secret, req.headers['x-webhook-signature'])).toBe(true);
      expect(req.headers['x-webhook-id']).toBe(all.id);
      expect(req.headers['user-agent']).toBe('Stemforge-Webhooks/1.0');
    }
    const failedBody = WebhookPayload.parse(JSON.parse(first.raw.toString('utf8')));
    expect(first.headers['x-webhook-event']).toBe('job.failed');
    expect(failedBody).toMatchObject({
      event: 'job.failed',
      data: {
        jobId: failed.id,
        status: 'FAILED',
        outputs: null,
        errorMessage: failed.errorMessage,
        creditsCharged: 0,
        input: failed.input,
        options: failed.options,
        createdAt: failed.createdAt,
        completedAt: failed.completedAt,
      },
    });
    expect(failedBody.data.errorMessage).toBe('simulated inference failure');

    const doneBody = WebhookPayload.parse(JSON.parse(second.raw.toString('utf8')));
    expect(second.headers['x-webhook-event']).toBe('job.completed');
    expect(doneBody.data).toMatchObject({
      jobId: completed.id,
      status: 'COMPLETED',
      errorMessage: null,
      creditsCharged: completed.creditsCharged,
      input: completed.input,
      options: { outputType: 'VOCALS', quality: 'FAST', outputFormat: 'MP3' },
      createdAt: completed.createdAt,
      completedAt: completed.completedAt,
      metadata: { ref: 'e2e' },
    });
    expect(doneBody.data.creditsCharged).toBe(7);
    expect(Object.keys(doneBody.data.outputs!)).toEqual(Object.keys(completed.outputs));
    const download = await fetch(doneBody.data.outputs!.vocals!.url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('audio/mpeg');
    expect((await download.arrayBuffer()).byteLength).toBeGreaterThan(50_000);

    // The job.failed-only webhook heard the failure and nothing else.
    await new Promise((r) => setTimeout(r, 1500));
    expect(rx.at('/failed').map((r) => [r.headers['x-webhook-event'], r.headers['x-webhook-id']])).toEqual([
      ['job.failed', failedOnly.id],
    ]);
    expect(rx.at('/all')).toHaveLength(2);
    const listed: any = await (await s.api('/v1/webhooks', { key: user.key })).json();
    for (const w of listed.webhooks) expect(w).toMatchObject({ failCount: 0, isActive: true, lastError: null });
  });
});
