import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import type { ChildProcess } from 'node:child_process';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './helpers/server.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { startServe } from './helpers/stemforge-process.ts';
import { loadConfig } from '../src/config.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { listJobDeliveries } from '../src/store/webhook-deliveries.ts';

const KILLS = 6;

/**
 * Issue 29's "done when": six kill -9s of the embedded server (`stemforge serve`, a real process)
 * while the receiver holds a delivery (it has read the request and not answered) leave the webhook
 * active, every job's event delivered, and the next job's event delivered; no half-written file is
 * left in any temporary folder. The jobs' terminal transactions are committed by the test (the same
 * outbox write the worker makes), so the rounds are quick; a body half-received at each kill leaves
 * a real `tmp/*.part`.
 */
describe('kill -9 while a receiver holds a delivery (embedded, real processes)', () => {
  let dataDir: string;
  let server: ChildProcess | undefined;
  let rt: Runtime;
  let receiver: ReturnType<typeof createServer>;
  let hookUrl: string;
  /** Every request the receiver got: the job, when, and whether it was answered 200. */
  const got: Array<{ jobId: string; event: string; at: number; answered: boolean }> = [];
  let answer = false;
  const held: Array<{ res: ServerResponse; entry: { answered: boolean }; open: boolean }> = [];

  const until = async (check: () => boolean | Promise<boolean>, timeoutMs = 30_000) => {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error('condition not reached in time');
      await new Promise((r) => setTimeout(r, 50));
    }
  };

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'stemforge-hold-'));
    receiver = createServer((req: IncomingMessage, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { jobId: string } };
        const entry = { jobId: body.data.jobId, event: body.event, at: Date.now(), answered: answer };
        got.push(entry);
        if (answer) res.writeHead(200).end('ok');
        else {
          // Read, not answered: the delivery is held until the test lets it go (or the sender dies).
          const h = { res, entry, open: true };
          res.once('close', () => (h.open = false));
          held.push(h);
        }
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  });
  afterAll(async () => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    await rt?.close();
    for (const h of held) h.res.destroy();
    receiver.closeAllConnections();
    await new Promise((r) => receiver.close(r));
    await rm(dataDir, { recursive: true, force: true });
  });

  test(`${KILLS} kills while a delivery is held: webhook active, every event delivered, nothing half-written left`, async () => {
    const port = await freePort();
    const env = {
      STEMFORGE_DATA_DIR: dataDir,
      PORT: String(port),
      HOST: '127.0.0.1',
      ALLOW_PRIVATE_URLS: 'true',
      WEBHOOK_TIMEOUT_MS: '60000',
      RATE_LIMIT_PER_MINUTE: '100000',
    };
    const first = await startServe(env);
    server = first.child;
    const key = first.key!;
    const api = `http://127.0.0.1:${port}/v1`;
    const auth = { authorization: `Bearer ${key}` };
    const created = await fetch(`${api}/webhooks`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ url: hookUrl }),
    });
    expect(created.status).toBe(201);
    const hook = (await created.json()) as { id: string };
    // The test's own connection to the same database, to commit the jobs' terminal transactions.
    rt = await createRuntime(loadConfig({ STEMFORGE_DATA_DIR: dataDir, LOG_LEVEL: 'silent' }));
    const account = await rt.db.selectFrom('accounts').select('id').executeTakeFirstOrThrow();

    const jobs: string[] = [];
    let serverStartedAt = 0;
    for (let kill = 0; kill < KILLS; kill++) {
      jobs.push((await commitFinishedJob(rt, account.id, { outcome: kill % 2 ? 'FAILED' : 'COMPLETED' })).job.id);
      // An upload body half-received when the kill lands: a real data/tmp/in_*.part.
      const grant: any = await (
        await fetch(`${api}/upload`, {
          method: 'POST',
          headers: { ...auth, 'content-type': 'application/json' },
          body: JSON.stringify({ filename: 'song.wav' }),
        })
      ).json();
      fetch(grant.uploadUrl, {
        method: 'PUT',
        headers: { 'content-type': 'audio/wav' },
        body: new ReadableStream({ start: (c) => c.enqueue(new Uint8Array(128 * 1024)) }),
        duplex: 'half',
      } as RequestInit).catch(() => undefined);
      // This server's dispatcher has sent an event (this round's, or one an earlier kill cut) and the
      // receiver holds it.
      await until(() => got.some((g) => g.at >= serverStartedAt && !g.answered));
      await until(async () => (await readdir(join(dataDir, 'tmp')).catch(() => [])).length > 0);
      server.kill('SIGKILL');
      await new Promise((r) => server!.once('exit', r));
      serverStartedAt = Date.now();
      server = (await startServe(env)).child;
    }

    // The receiver is well again: it answers what the live server is sending, and the rest that our
    // crashes cut is sent again.
    answer = true;
    for (const h of held.filter((x) => x.open)) {
      h.entry.answered = true;
      h.res.writeHead(200).end('ok');
    }
    const delivered = (id: string) => got.some((g) => g.jobId === id && g.answered);
    await until(() => jobs.every(delivered), 60_000);
    // The next job's event is delivered too: the webhook was never disabled by our crashes.
    const next = (await commitFinishedJob(rt, account.id, { outcome: 'COMPLETED' })).job.id;
    await until(() => delivered(next), 30_000);

    const listed = (await (await fetch(`${api}/webhooks`, { headers: auth })).json()) as {
      webhooks: Array<{ id: string; isActive: boolean; failCount: number }>;
    };
    expect(listed.webhooks.find((w) => w.id === hook.id)).toMatchObject({ isActive: true, failCount: 0 });
    for (const id of [...jobs, next]) {
      const rows = await listJobDeliveries(rt.db, id);
      expect(rows.map((r) => [r.status, r.response_status])).toEqual([['done', 200]]);
    }
    // Each event answered once; the cut requests are the only repeats (at most one per kill and slot).
    for (const id of [...jobs, next]) expect(got.filter((g) => g.jobId === id && g.answered)).toHaveLength(1);
    const repeats = got.length - jobs.length - 1;
    expect(repeats).toBeGreaterThanOrEqual(KILLS);

    // No half-written file in any temporary folder (the start-up sweep took what each kill left).
    server.kill('SIGTERM');
    await new Promise((r) => server!.once('exit', r));
    for (const dir of ['tmp', 'work', join('blobs', 'tmp')]) {
      expect(await readdir(join(dataDir, dir)).catch(() => [])).toEqual([]);
    }
  });
});
