import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { TEST_POSTGRES_URL } from './helpers/db.ts';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts';
import { uploadFile } from './helpers/jobs.ts';
import { makeTone } from './helpers/audio.ts';
import { untilReady, timed } from './helpers/outage.ts';

/**
 * PostgreSQL cut behind a TCP proxy (the shared server itself is never touched): requests answer 503
 * SERVICE_UNAVAILABLE with Retry-After within DEPENDENCY_TIMEOUT_SECONDS (2 s here), whether the
 * port refuses or stays silent; nothing is stored; everything answers again once the link returns.
 */
describe('PostgreSQL away', () => {
  let proxy: TcpProxy;
  let s: TestServer;
  let user: { id: string; key: string };
  let uploadKey: string;
  const timeoutMs = 2_000;

  beforeAll(async () => {
    const target = new URL(TEST_POSTGRES_URL);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) });
    const url = new URL(TEST_POSTGRES_URL);
    url.host = proxy.address;
    s = await startTestServer('postgres', {
      DATABASE_URL: url.toString(),
      DEPENDENCY_TIMEOUT_SECONDS: String(timeoutMs / 1000),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    user = await s.newAccount(600);
    const tone = await makeTone(join(s.dataDir, 'tone.wav'), 6);
    uploadKey = await uploadFile(s, user.key, tone, 'tone.wav');
  });
  afterAll(async () => {
    await proxy?.restore();
    await s?.close();
    await proxy?.close();
  });

  const createJob = () =>
    s.api('/v1/jobs', { key: user.key, method: 'POST', json: { uploadKey, outputType: 'VOCALS', quality: 'FAST' } });

  for (const mode of ['refuse', 'silent'] as const) {
    test(`a ${mode === 'refuse' ? 'refused' : 'silent'} connection: 503 within the timeout, nothing stored, recovery`, async () => {
      await proxy.cut(mode);
      const { value: res, ms } = await timed(createJob);
      expect(res.status).toBe(503);
      expect(res.headers.get('retry-after')).toBe('5');
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('SERVICE_UNAVAILABLE');
      expect(body.error.message).toMatch(/cannot reach the database/);
      // Bounded: the deadline plus slack for a loaded machine, far below a hang.
      expect(ms).toBeLessThan(timeoutMs + 8_000);

      const balance = await s.api('/v1/balance', { key: user.key });
      expect(balance.status).toBe(503);
      expect((await s.api('/healthz')).status).toBe(200);
      const ready = await s.api('/readyz');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as any).checks.database.ok).toBe(false);

      await proxy.restore();
      await untilReady(s.base);
      const after = (await (await s.api('/v1/balance', { key: user.key })).json()) as { balanceSeconds: number };
      expect(after.balanceSeconds).toBe(600);
      expect(await s.rt.db.selectFrom('jobs').select('id').execute()).toEqual([]);
    }, 60_000);
  }

  test('after the outages, a job is created as usual', async () => {
    const res = await createJob();
    expect(res.status).toBe(201);
    expect((await s.rt.db.selectFrom('jobs').select('id').execute()).length).toBe(1);
  });
});
