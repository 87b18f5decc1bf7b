import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { stemforge } from './helpers/cli.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { recordDeliveryOutcome } from '../src/store/webhooks.ts';

describe('stemforge webhooks enable', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { ALLOW_PRIVATE_URLS: 'true' });
  });
  afterAll(async () => s?.close());

  test('re-enables a disabled webhook; unknown id exits 1; bad usage exits 2', async () => {
    const user = await s.newAccount();
    const { id } = (await (
      await s.api('/v1/webhooks', { key: user.key, method: 'POST', json: { url: 'http://127.0.0.1:9/cli' } })
    ).json()) as any;
    for (let i = 0; i < 5; i++) await recordDeliveryOutcome(s.rt.db, id, { ok: false, error: 'HTTP 502' });
    const list = async () => ((await (await s.api('/v1/webhooks', { key: user.key })).json()) as any).webhooks[0];
    expect(await list()).toMatchObject({ isActive: false, failCount: 5, lastError: 'HTTP 502' });

    const env = { STEMFORGE_DATA_DIR: s.dataDir };
    const ok = await stemforge(['webhooks', 'enable', id], env);
    expect(ok.stderr).toBe('');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(`enabled webhook ${id} (http://127.0.0.1:9/cli)`);
    expect(await list()).toMatchObject({ isActive: true, failCount: 0, lastError: null });

    const json = await stemforge(['webhooks', 'enable', id, '--json'], env);
    expect(JSON.parse(json.stdout)).toMatchObject({
      id,
      isActive: true,
      failCount: 0,
      lastError: null,
      events: ['job.completed', 'job.failed'],
    });
    expect(json.stdout).not.toContain('whsec_');

    const unknown = await stemforge(['webhooks', 'enable', 'wh_nope'], env);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no webhook wh_nope');

    const usage = await stemforge(['webhooks', 'disable', id], env);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage: stemforge webhooks enable');
  });
});
