import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { WebhookCreated, WebhookList } from '../src/contract/webhooks.ts';
import { enableWebhook, findWebhook, recordDeliveryOutcome } from '../src/store/webhooks.ts';

describe.each(dialects)('webhook routes and repository (%s)', (dialect) => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer(dialect, { ALLOW_PRIVATE_URLS: 'true', RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => s?.close());

  const create = (key: string, json: unknown) => s.api('/v1/webhooks', { key, method: 'POST', json });

  test('create: 201 with a secret, both events by default; duplicates dropped; the list never shows the secret', async () => {
    const user = await s.newAccount();
    const res = await create(user.key, { url: 'http://127.0.0.1:9/hook' });
    expect(res.status).toBe(201);
    const created = WebhookCreated.parse(await res.json());
    expect(created).toMatchObject({
      url: 'http://127.0.0.1:9/hook',
      events: ['job.completed', 'job.failed'],
      isActive: true,
    });
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);

    const dup = WebhookCreated.parse(
      await (await create(user.key, { url: 'https://example.com/a', events: ['job.failed', 'job.failed'] })).json(),
    );
    expect(dup.events).toEqual(['job.failed']);
    expect(dup.secret).not.toBe(created.secret);

    const list = await s.api('/v1/webhooks', { key: user.key });
    expect(list.status).toBe(200);
    const text = await list.text();
    expect(text).not.toContain(created.secret);
    expect(text).not.toContain('secret');
    const { webhooks } = WebhookList.parse(JSON.parse(text));
    expect(webhooks.map((w) => w.id)).toEqual([created.id, dup.id]);
    expect(webhooks[0]).toEqual({
      id: created.id,
      url: created.url,
      events: created.events,
      isActive: true,
      failCount: 0,
      lastError: null,
      lastCalledAt: null,
      createdAt: created.createdAt,
    });
  });

  test('validation: empty or unknown events, bad scheme, missing url, unknown fields -> 400 VALIDATION_ERROR naming the field', async () => {
    const user = await s.newAccount();
    const cases: Array<[unknown, string]> = [
      [{ url: 'http://127.0.0.1:9/', events: [] }, 'events'],
      [{ url: 'http://127.0.0.1:9/', events: ['job.completed', 'job.started'] }, 'events.1'],
      [{ url: 'ftp://example.com/hook' }, 'url'],
      [{ url: 'not a url' }, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2050)}` }, 'url'],
      [{ events: ['job.failed'] }, 'url'],
    ];
    for (const [json, field] of cases) {
      const res = await create(user.key, json);
      expect(res.status, JSON.stringify(json).slice(0, 80)).toBe(400);
      const body: any = await res.json();
      expect(body.error.code).toBe('VALIDATION_ERROR');
      expect(body.error.field).toBe(field);
      expect(body.error.message).toContain(`'${field}'`);
    }
    const extra: any = await (await create(user.key, { url: 'https://example.com/', secret: 'mine' })).json();
    expect(extra.error.code).toBe('VALIDATION_ERROR');
    // Credentials in the URL are refused by the address guard's shape check.
    const creds: any = await (await create(user.key, { url: 'https://user:pw@example.com/' })).json();
    expect(creds.error.code).toBe('URL_NOT_ALLOWED');
    expect(((await (await s.api('/v1/webhooks', { key: user.key })).json()) as any).webhooks).toEqual([]);
  });

  test('at most 5 webhooks per account (409 WEBHOOK_LIMIT_REACHED); a deleted one frees a slot', async () => {
    const user = await s.newAccount();
    const ids: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await create(user.key, { url: `http://127.0.0.1:9/h${i}` });
      expect(res.status).toBe(201);
      ids.push(((await res.json()) as any).id);
    }
    const sixth = await create(user.key, { url: 'http://127.0.0.1:9/h6' });
    expect(sixth.status).toBe(409);
    expect(((await sixth.json()) as any).error.code).toBe('WEBHOOK_LIMIT_REACHED');
    // The limit is per account.
    const other = await s.newAccount();
    expect((await create(other.key, { url: 'http://127.0.0.1:9/x' })).status).toBe(201);
    expect((await s.api(`/v1/webhooks/${ids[0]}`, { key: user.key, method: 'DELETE' })).status).toBe(200);
    expect((await create(user.key, { url: 'http://127.0.0.1:9/h7' })).status).toBe(201);
    expect((await create(user.key, { url: 'http://127.0.0.1:9/h8' })).status).toBe(409);
  });

  test('racing creations never exceed the limit', async () => {
    const user = await s.newAccount();
    const results = await Promise.all(
      Array.from({ length: 8 }, (_, i) => create(user.key, { url: `http://127.0.0.1:9/r${i}` })),
    );
    const statuses = results.map((r) => r.status).sort();
    expect(statuses.filter((st) => st === 201)).toHaveLength(5);
    expect(statuses.filter((st) => st === 409)).toHaveLength(3);
  });

  test('delete: 200 {deleted:true}; unknown, already deleted or another account -> 404 WEBHOOK_NOT_FOUND', async () => {
    const owner = await s.newAccount();
    const stranger = await s.newAccount();
    const { id } = (await (await create(owner.key, { url: 'http://127.0.0.1:9/d' })).json()) as any;
    for (const [key, target] of [
      [stranger.key, id],
      [owner.key, 'wh_doesnotexist'],
    ]) {
      const res = await s.api(`/v1/webhooks/${target}`, { key, method: 'DELETE' });
      expect(res.status).toBe(404);
      expect(((await res.json()) as any).error.code).toBe('WEBHOOK_NOT_FOUND');
    }
    // The stranger sees none of the owner's webhooks either.
    expect(((await (await s.api('/v1/webhooks', { key: stranger.key })).json()) as any).webhooks).toEqual([]);
    const res = await s.api(`/v1/webhooks/${id}`, { key: owner.key, method: 'DELETE' });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ deleted: true });
    expect(((await (await s.api('/v1/webhooks', { key: owner.key })).json()) as any).webhooks).toEqual([]);
    const again = await s.api(`/v1/webhooks/${id}`, { key: owner.key, method: 'DELETE' });
    expect(again.status).toBe(404);
    // Without a key: 401, as every route.
    expect((await s.api('/v1/webhooks')).status).toBe(401);
  });

  test('failure counting auto-disables at 5, success resets, enableWebhook restores', async () => {
    const user = await s.newAccount();
    const { id } = (await (await create(user.key, { url: 'http://127.0.0.1:9/c' })).json()) as any;
    for (let i = 1; i <= 4; i++) await recordDeliveryOutcome(s.rt.db, id, { ok: false, error: `HTTP 50${i}` });
    let row = (await findWebhook(s.rt.db, id))!;
    expect([row.fail_count, row.is_active, row.last_error]).toEqual([4, 1, 'HTTP 504']);
    await recordDeliveryOutcome(s.rt.db, id, { ok: true, error: null });
    row = (await findWebhook(s.rt.db, id))!;
    expect([row.fail_count, row.is_active, row.last_error]).toEqual([0, 1, 'HTTP 504']);
    expect(row.last_called_at).not.toBeNull();
    for (let i = 1; i <= 5; i++) await recordDeliveryOutcome(s.rt.db, id, { ok: false, error: 'timeout after 500 ms' });
    row = (await findWebhook(s.rt.db, id))!;
    expect([row.fail_count, row.is_active]).toEqual([5, 0]);
    const listed: any = await (await s.api('/v1/webhooks', { key: user.key })).json();
    expect(listed.webhooks[0]).toMatchObject({ isActive: false, failCount: 5, lastError: 'timeout after 500 ms' });

    const enabled = await enableWebhook(s.rt.db, id);
    expect(enabled).toMatchObject({ id, isActive: true, failCount: 0, lastError: null });
    expect(await enableWebhook(s.rt.db, 'wh_unknown')).toBeNull();
    await s.api(`/v1/webhooks/${id}`, { key: user.key, method: 'DELETE' });
    expect(await enableWebhook(s.rt.db, id)).toBeNull(); // deleted stays deleted
  });
});

describe('private addresses are refused by default', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite', { RATE_LIMIT_PER_MINUTE: '100000' });
  });
  afterAll(async () => s?.close());

  test.each([
    'http://127.0.0.1:8080/hook',
    'http://10.0.0.7/hook',
    'http://169.254.169.254/latest',
    'http://[::1]/hook',
    'http://localhost/hook',
  ])('%s -> 400 URL_NOT_ALLOWED', async (url) => {
    const user = await s.newAccount();
    const res = await s.api('/v1/webhooks', { key: user.key, method: 'POST', json: { url } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error.code).toBe('URL_NOT_ALLOWED');
  });
});
