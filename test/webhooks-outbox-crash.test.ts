import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { startWorker } from './helpers/stemforge-process.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { startWebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { listJobDeliveries } from '../src/store/webhook-deliveries.ts';
import { findWebhook } from '../src/store/webhooks.ts';

async function until(check: () => Promise<boolean>, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error('condition not reached in time');
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('webhook outbox across crashes (sqlite, real processes)', () => {
  let s: TestServer;
  let rx: Receiver;
  const runtimes: Runtime[] = [];
  let child: ChildProcess | undefined;
  const env = () => ({
    STEMFORGE_DATA_DIR: s.dataDir,
    ALLOW_PRIVATE_URLS: 'true',
    WEBHOOK_TIMEOUT_MS: '500',
    LOG_LEVEL: 'silent',
  });
  /** Another process's runtime on the same database: what a restart gets. */
  const restartedRuntime = async () => {
    const rt = await createRuntime(loadConfig(env()));
    runtimes.push(rt);
    return rt;
  };

  beforeAll(async () => {
    rx = await startReceiver();
    s = await startTestServer('sqlite', {
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '500',
      RATE_LIMIT_PER_MINUTE: '100000',
    });
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    for (const rt of runtimes) await rt.close();
    await s?.close();
    await rx?.close();
  });

  test('committed events are delivered after a crash; an attempt cut by our crash is sent again and not counted against the receiver', async () => {
    const user = await s.newAccount();
    rx.on('/hang', 'hang');
    const hooks: Record<string, { id: string }> = {};
    for (const [name, events] of [
      ['hang', undefined],
      ['a', undefined],
      ['b', ['job.completed']],
    ] as const) {
      const res = await s.api('/v1/webhooks', {
        key: user.key,
        method: 'POST',
        json: { url: rx.url(`/${name}`), ...(events ? { events } : {}) },
      });
      hooks[name] = (await res.json()) as { id: string };
    }

    // 1. The job's terminal state and its outbox rows commit while no dispatcher runs anywhere
    //    (the crash window between commit and delivery).
    // With an output: its signed URL is part of the body (issue 41: and of the repeat, unchanged).
    const j1 = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED', outputs: { vocals: Buffer.from('v') } });
    expect(j1.deliveries).toBe(3);
    expect((await listJobDeliveries(s.rt.db, j1.job.id)).map((r) => r.status)).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    expect(rx.received).toHaveLength(0);

    // 2. A worker process starts, delivers, and is killed while one receiver is still answering.
    child = await startWorker({ ...env(), WEBHOOK_TIMEOUT_MS: '60000' });
    await Promise.all([rx.waitFor('/hang', 1, 30_000), rx.waitFor('/a', 1, 30_000), rx.waitFor('/b', 1, 30_000)]);
    await until(
      async () => (await listJobDeliveries(s.rt.db, j1.job.id)).filter((r) => r.status === 'done').length === 2,
    );
    child.kill('SIGKILL');
    await new Promise((r) => child!.once('exit', r));
    const cut = (await listJobDeliveries(s.rt.db, j1.job.id)).find((r) => r.webhook_id === hooks.hang!.id)!;
    expect(cut.status).toBe('sending');

    // 3. More events commit while everything is down.
    const j2 = await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    expect(j2.deliveries).toBe(2); // b is subscribed to job.completed only

    // 4. Restart: two dispatchers in two runtimes race over the same outbox. The embedded start
    //    knows the cut attempt's claimer is dead (another process's claim), so the event is sent
    //    again at once; the receiver is well now and answers 200.
    rx.on('/hang', 200);
    const d1 = startWebhookDispatcher(s.rt, { pollMs: 20 });
    const d2 = startWebhookDispatcher(await restartedRuntime(), { pollMs: 20 });
    await Promise.all([d1.drain(), d2.drain()]);
    await Promise.all([d1.stop(), d2.stop()]);

    const resent = (await listJobDeliveries(s.rt.db, j1.job.id)).find((r) => r.webhook_id === hooks.hang!.id)!;
    expect(resent).toMatchObject({ status: 'done', error: null, response_status: 200 });
    // Our crash is not the receiver's failure: nothing counted, the webhook stays active.
    expect(await findWebhook(s.rt.db, hooks.hang!.id)).toMatchObject({ fail_count: 0, is_active: 1 });
    const pairs = (path: string) => rx.at(path).map((r) => JSON.parse(r.raw.toString()).data.jobId as string);
    // The cut request and its repeat are byte-identical, signature and X-Webhook-Id included.
    expect(pairs('/hang')).toEqual([j1.job.id, j1.job.id, j2.job.id]);
    const [cutCopy, repeat] = rx.at('/hang');
    expect(repeat!.raw.equals(cutCopy!.raw)).toBe(true);
    // The output URL outlives the delay: it is valid until the job's outputs expire.
    const sent = JSON.parse(repeat!.raw.toString()) as {
      data: { outputs: Record<string, { url: string; expiresAt: string }> };
    };
    expect(sent.data.outputs.vocals!.expiresAt.slice(0, 16)).toBe(j1.job.expires_at!.slice(0, 16));
    expect((await fetch(sent.data.outputs.vocals!.url)).status).toBe(200);
    for (const h of ['x-webhook-id', 'x-webhook-event', 'x-webhook-signature'])
      expect(repeat!.headers[h]).toBe(cutCopy!.headers[h]);
    expect(pairs('/a').sort()).toEqual([j1.job.id, j2.job.id].sort());
    expect(pairs('/b')).toEqual([j1.job.id]);
    for (const job of [j1.job, j2.job]) {
      expect((await listJobDeliveries(s.rt.db, job.id)).every((r) => r.status === 'done')).toBe(true);
    }

    // 5. Another restart finds nothing to send: nothing is ever sent twice.
    const before = rx.received.length;
    const d3 = startWebhookDispatcher(await restartedRuntime(), { pollMs: 20, staleAfterMs: 0 });
    await d3.drain();
    await new Promise((r) => setTimeout(r, 200));
    await d3.stop();
    expect(rx.received.length).toBe(before);
  });

  test('a live attempt of another process is not mistaken for a dead one', async () => {
    const user = await s.newAccount();
    rx.on('/slowish', 'hang');
    const res = await s.api('/v1/webhooks', { key: user.key, method: 'POST', json: { url: rx.url('/slowish') } });
    const wh = (await res.json()) as { id: string };
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    const sender = startWebhookDispatcher(s.rt, { pollMs: 20 });
    await rx.waitFor('/slowish', 1);
    // A second process starts while the first is mid-attempt; its default staleness window
    // (timeout + a minute) leaves the row alone, so the outcome is recorded once, by its owner.
    const other = startWebhookDispatcher(await restartedRuntime(), { pollMs: 20 });
    await sender.drain();
    await Promise.all([sender.stop(), other.stop()]);
    const [row] = await listJobDeliveries(s.rt.db, job.id);
    expect(row).toMatchObject({ status: 'done', error: 'timeout after 500 ms' });
    expect((await findWebhook(s.rt.db, wh.id))!.fail_count).toBe(1);
    expect(rx.at('/slowish')).toHaveLength(1);
  });

  test('a claim of a dead process is sent again: at once by the embedded start, after the stale window otherwise', async () => {
    const user = await s.newAccount();
    const res = await s.api('/v1/webhooks', { key: user.key, method: 'POST', json: { url: rx.url('/claimed') } });
    const wh = (await res.json()) as { id: string };
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    // A process claimed the row and died before sending (or while sending): only its claim is left.
    await s.rt.db
      .updateTable('webhook_deliveries')
      .set({ status: 'sending', sent_at: new Date().toISOString(), claimed_by: 'w_dead0000' })
      .where('job_id', '=', job.id)
      .execute();
    // Scale-out: another process cannot know the claimer is dead until the claim is stale.
    const early = startWebhookDispatcher(s.rt, { pollMs: 20, soleSender: false });
    await early.drain();
    await early.stop();
    expect(rx.at('/claimed')).toHaveLength(0);
    expect((await listJobDeliveries(s.rt.db, job.id))[0]).toMatchObject({ status: 'sending' });
    // The embedded start is the only sender: the claim is dead, the event goes out now.
    const sole = startWebhookDispatcher(s.rt, { pollMs: 20, soleSender: true });
    await sole.drain();
    await sole.stop();
    expect(rx.at('/claimed')).toHaveLength(1);
    expect((await listJobDeliveries(s.rt.db, job.id))[0]).toMatchObject({ status: 'done', response_status: 200 });
    expect(await findWebhook(s.rt.db, wh.id)).toMatchObject({ fail_count: 0, is_active: 1 });
  });
});
