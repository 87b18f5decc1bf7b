import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { s3Settings, startS3Server, type TestS3Server } from './helpers/s3-server.ts';
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy.ts';
import { makeTone } from './helpers/audio.ts';
import { timed, untilReady } from './helpers/outage.ts';

/**
 * The S3 store cut behind a TCP proxy, refusing or silent: an upload (its bytes go to S3) answers 503
 * with Retry-After, each of the S3 client's attempts bounded by DEPENDENCY_TIMEOUT_SECONDS (2 s
 * here), and stores nothing; requests that do
 * not need S3 go on; `/readyz` names the storage; all of it answers again once the link returns.
 */
describe('S3 away', () => {
  let s3: TestS3Server;
  let proxy: TcpProxy;
  let s: TestServer;
  let user: { id: string; key: string };
  let tone: Buffer;
  const timeoutMs = 2_000;

  beforeAll(async () => {
    s3 = await startS3Server('stemforge-s3-away');
    const target = new URL(s3.endpoint);
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port) });
    s = await startTestServer('sqlite', {
      ...s3Settings(s3),
      S3_ENDPOINT: `http://${proxy.address}`,
      DEPENDENCY_TIMEOUT_SECONDS: String(timeoutMs / 1000),
      RATE_LIMIT_PER_MINUTE: '100000',
    });
    user = await s.newAccount(600);
    tone = await readFile(await makeTone(join(s.dataDir, 'tone.wav'), 6));
  });
  afterAll(async () => {
    await proxy?.restore();
    await s?.close();
    await proxy?.close();
    await s3?.close();
  });

  /** POST /v1/upload, then the PUT of the bytes (through this API, to S3). */
  const upload = async () => {
    const grant = (await (
      await s.api('/v1/upload', { key: user.key, method: 'POST', json: { filename: 'tone.wav' } })
    ).json()) as { uploadUrl: string; uploadKey: string; contentType: string };
    const put = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: tone,
    });
    return { put, uploadKey: grant.uploadKey };
  };

  for (const mode of ['refuse', 'silent'] as const) {
    test(`a ${mode === 'refuse' ? 'refused' : 'silent'} store: 503 within the timeout, nothing stored, recovery`, async () => {
      await proxy.cut(mode);
      const { value, ms } = await timed(upload);
      expect(value.put.status).toBe(503);
      expect(value.put.headers.get('retry-after')).toBe('5');
      expect(((await value.put.json()) as any).error).toEqual({
        code: 'SERVICE_UNAVAILABLE',
        message: expect.stringMatching(/cannot reach the file storage/),
      });
      // Bounded: an upload's bytes wait at most the timeout per attempt, and the S3 client makes up
      // to three attempts; the slack is for a loaded machine, far below a hang.
      expect(ms).toBeLessThan(3 * timeoutMs + 8_000);
      const row = await s.rt.db
        .selectFrom('uploads')
        .select('status')
        .where('id', '=', value.uploadKey)
        .executeTakeFirst();
      expect(row?.status).not.toBe('uploaded');

      expect((await s.api('/v1/balance', { key: user.key })).status).toBe(200);
      const ready = await s.api('/readyz');
      expect(ready.status).toBe(503);
      expect(((await ready.json()) as any).checks).toMatchObject({ storage: { ok: false }, database: { ok: true } });

      await proxy.restore();
      await untilReady(s.base);
      expect((await upload()).put.status).toBe(200);
    }, 60_000);
  }
});
