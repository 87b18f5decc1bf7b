import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { join, resolve } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { startWebhookDispatcher } from '../src/webhooks/dispatcher.ts';
import { INTERRUPTED_ERROR, listJobDeliveries } from '../src/store/webhook-deliveries.ts';
import { findWebhook } from '../src/store/webhooks.ts';

const repo = resolve(import.meta.dirname, '..');

/** `stemforge worker` as a real child process (its dispatcher delivers webhooks). */
function startWorkerProcess(env: Record<string, string>): Promise<ChildProcess> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), 'worker'], {
      cwd: repo,
      env: { ...process.env, ...env, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stemforge worker started')) resolvePromise(child);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('exit', (code) => reject(new Error(`worker exited early (${code}): ${out}`)));
  });
}

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

  test('committed events are delivered after a crash exactly once; an attempt cut by a crash is closed, never re-sent', async () => {
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
    const j1 = await commitFinishedJob(s.rt, user.id, { outcome: 'COMPLETED' });
    expect(j1.deliveries).toBe(3);
    expect((await listJobDeliveries(s.rt.db, j1.job.id)).map((r) => r.status)).toEqual([
      'pending',
      'pending',
      'pending',
    ]);
    expect(rx.received).toHaveLength(0);

    // 2. A worker process starts, delivers, and is killed while one receiver is still answering.
    child = await startWorkerProcess({ ...env(), WEBHOOK_TIMEOUT_MS: '60000' });
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

    // 4. Restart: two dispatchers in two runtimes race over the same outbox. The cut attempt is
    //    older than staleAfterMs, so the start-up sweep closes it as a failure without re-sending.
    await new Promise((r) => setTimeout(r, 1100 - (Date.now() - Date.parse(cut.sent_at!))));
    const d1 = startWebhookDispatcher(s.rt, { pollMs: 20, staleAfterMs: 1000 });
    const d2 = startWebhookDispatcher(await restartedRuntime(), { pollMs: 20, staleAfterMs: 1000 });
    await Promise.all([d1.drain(), d2.drain()]);
    await Promise.all([d1.stop(), d2.stop()]);

    const closed = (await listJobDeliveries(s.rt.db, j1.job.id)).find((r) => r.webhook_id === hooks.hang!.id)!;
    expect(closed).toMatchObject({ status: 'done', error: INTERRUPTED_ERROR, response_status: null });
    // Counted as a failure, like the timeout of j2's delivery to the same receiver.
    expect((await findWebhook(s.rt.db, hooks.hang!.id))!.fail_count).toBe(2);
    const pairs = (path: string) => rx.at(path).map((r) => JSON.parse(r.raw.toString()).data.jobId as string);
    expect(pairs('/hang')).toEqual([j1.job.id, j2.job.id]);
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
});
