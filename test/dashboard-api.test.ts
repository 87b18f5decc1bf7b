import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import {
  SessionInfo,
  KeyCreated,
  KeyList,
  DashboardWebhookCreated,
  DashboardWebhookList,
  DeliveryList,
  WebhookTestResult,
} from '../src/contract/dashboard.ts';
import { WebhookPayload } from '../src/contract/webhooks.ts';
import { SIGN_IN_FREE_FAILURES, SIGN_IN_PER_ADDRESS } from '../src/dashboard/throttle.ts';
import { recordDeliveryOutcome } from '../src/store/webhooks.ts';
import { listPendingDeliveries } from '../src/store/webhook-deliveries.ts';
import { deliverOne } from '../src/webhooks/dispatcher.ts';
import { verifySignature } from '../src/webhooks/sign.ts';
import { dialects } from './helpers/db.ts';
import { dashboardClient, newDashboardUser, signedIn, BEHIND_LOCAL_PROXY } from './helpers/dashboard.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';

const errorOf = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

describe.each(dialects)('dashboard API: sessions, keys, webhooks (%s)', (dialect) => {
  let s: TestServer;
  let receiver: Receiver;
  beforeAll(async () => {
    s = await startTestServer(dialect, { ...BEHIND_LOCAL_PROXY, ALLOW_PRIVATE_URLS: 'true' });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await s?.close();
  });

  test('sign in: HttpOnly SameSite=Lax session cookie, the session answers GET /session; no cookie is 401', async () => {
    const user = await newDashboardUser(s);
    const c = dashboardClient(s);
    const res = await c.signIn(user.email.toUpperCase(), user.password);
    expect(res.status).toBe(200);
    const body = SessionInfo.parse(await res.json());
    // The server's first account: its admin (issue 30).
    expect(body.account).toEqual({ id: user.id, email: user.email, isAdmin: true });
    const cookie = res.headers.get('set-cookie')!;
    expect(cookie).toMatch(/^sf_session=[\w-]{43}; /);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    expect(cookie).toContain('Path=/');
    expect(cookie).toContain(`Max-Age=${7 * 24 * 3600}`);
    expect(cookie).not.toContain('Secure'); // PUBLIC_URL is http here
    // The token is stored hashed: the cookie value is nowhere in the table.
    const rows = await s.rt.db.selectFrom('sessions').select('id').where('account_id', '=', user.id).execute();
    expect(rows).toHaveLength(1);
    expect(rows[0]!.id).not.toBe(c.cookie!.split('=')[1]);

    const again = await c.call('GET', '/session');
    expect(again.status).toBe(200);
    expect(SessionInfo.parse(await again.json())).toEqual(body);
    const anon = await dashboardClient(s).call('GET', '/session');
    expect(anon.status).toBe(401);
    expect((await errorOf(anon)).code).toBe('NOT_SIGNED_IN');
  });

  test('wrong password and unknown email get the same 401 and message', async () => {
    const user = await newDashboardUser(s);
    const wrong = await dashboardClient(s).signIn(user.email, `${user.password}x`);
    const unknown = await dashboardClient(s).signIn(`nobody-${user.id}@example.com`, user.password);
    expect(wrong.status).toBe(401);
    expect(unknown.status).toBe(401);
    expect(wrong.headers.get('set-cookie')).toBeNull();
    const [a, b] = [await errorOf(wrong), await errorOf(unknown)];
    expect(a.code).toBe('INVALID_CREDENTIALS');
    expect(b).toEqual(a);
    // Nearly the longest email the schema takes (320 UTF-16 units), of a letter whose lower case is
    // two units (U+0130, Turkish dotted I): the same 401, not a 500 from a throttle key over the
    // limiter's 512 (the dashboard fuzzer found it).
    const dotted = await dashboardClient(s).signIn(`${'\u0130'.repeat(300)}@x.io`, 'whatever-password');
    expect(dotted.status === 401 || dotted.status === 400, String(dotted.status)).toBe(true);
  });

  test('issue 41: twelve wrong passwords from one address slow that address down, never the owner at another', async () => {
    const user = await newDashboardUser(s);
    const attacker = '10.201.1.1';
    const statuses: number[] = [];
    for (let i = 0; i < 12; i++) statuses.push((await dashboardClient(s, attacker).signIn(user.email, 'wrong')).status);
    // Free failures, then the growing delay refuses the rest (even with the right password).
    expect(statuses).toEqual([
      ...Array(SIGN_IN_FREE_FAILURES).fill(401),
      ...Array(12 - SIGN_IN_FREE_FAILURES).fill(429),
    ]);
    const refused = await dashboardClient(s, attacker).signIn(user.email, user.password);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers.get('retry-after'))).toBe(1);
    expect((await errorOf(refused)).code).toBe('RATE_LIMIT_EXCEEDED');
    // The owner, elsewhere, signs in at once.
    expect((await dashboardClient(s, '10.201.2.2').signIn(user.email, user.password)).status).toBe(200);
    // Once the delay has passed the attacker's address may try again; each failure doubles the next wait.
    await new Promise((r) => setTimeout(r, 1_100));
    expect((await dashboardClient(s, attacker).signIn(user.email, 'wrong')).status).toBe(401);
    const slower = await dashboardClient(s, attacker).signIn(user.email, 'wrong');
    expect(slower.status).toBe(429);
    expect(Number(slower.headers.get('retry-after'))).toBe(2);
    // The same for the admin's email, the one the first start prints: a stranger cannot lock it.
    const admin = (await s.rt.db.selectFrom('accounts').select('email').where('is_admin', '=', 1).executeTakeFirst())!;
    for (let i = 0; i < 12; i++) await dashboardClient(s, attacker).signIn(admin.email, 'wrong');
    const adminUser = await s.rt.db
      .selectFrom('accounts')
      .select('id')
      .where('email', '=', admin.email)
      .executeTakeFirstOrThrow();
    const { hashPassword } = await import('../src/accounts/password.ts');
    const { setPasswordHash } = await import('../src/store/account-passwords.ts');
    await setPasswordHash(s.rt.db, adminUser.id, await hashPassword('the-admin-password'));
    expect((await dashboardClient(s, '10.201.3.3').signIn(admin.email, 'the-admin-password')).status).toBe(200);
  });

  test('sign-in is throttled per address across emails: 429 with Retry-After, even for the right password', async () => {
    const user = await newDashboardUser(s);

    const address = '10.200.1.1';
    const tries = Array.from({ length: SIGN_IN_PER_ADDRESS }, (_, i) =>
      dashboardClient(s, address).signIn(`guess-${i}-${user.id}@example.com`, 'wrong-password'),
    );
    expect((await Promise.all(tries)).map((r) => r.status)).toEqual(Array(SIGN_IN_PER_ADDRESS).fill(401));
    const other = await newDashboardUser(s);
    const blocked = await dashboardClient(s, address).signIn(other.email, other.password);
    expect(blocked.status).toBe(429);
    expect((await dashboardClient(s).signIn(other.email, other.password)).status).toBe(200);
  });

  test('CSRF: a state-changing request without the token, with a wrong one, or from a foreign Origin is 403', async () => {
    const user = await newDashboardUser(s);
    const c = await signedIn(s, user);
    const noToken = await c.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': '' });
    expect(noToken.status).toBe(403);
    expect((await errorOf(noToken)).code).toBe('CSRF_TOKEN_INVALID');
    const wrong = await c.call('POST', '/keys', { name: 'x' }, { 'x-csrf-token': `${c.csrf}x` });
    expect(wrong.status).toBe(403);
    const foreign = await c.call(
      'POST',
      '/keys',
      { name: 'x' },
      { origin: 'https://evil.example', 'x-csrf-token': c.csrf! },
    );
    expect(foreign.status).toBe(403);
    const foreignSignIn = await dashboardClient(s).call(
      'POST',
      '/session',
      { email: user.email, password: user.password },
      { origin: 'https://evil.example' },
    );
    expect(foreignSignIn.status).toBe(403);
    const ok = await c.call('POST', '/keys', { name: 'x' }, { origin: s.base, 'x-csrf-token': c.csrf! });
    expect(ok.status).toBe(201);
    expect((await c.call('GET', '/keys')).status).toBe(200); // reads need no token
  });

  test('sign-out deletes the session and clears the cookie', async () => {
    const c = await signedIn(s, await newDashboardUser(s));
    const out = await c.call('DELETE', '/session');
    expect(out.status).toBe(204);
    expect(out.headers.get('set-cookie')).toMatch(/^sf_session=; .*Max-Age=0/);
    expect((await c.call('GET', '/session')).status).toBe(401);
  });

  test('change password: checks the current one, ends the other sessions, keeps this one', async () => {
    const user = await newDashboardUser(s);
    const a = await signedIn(s, user);
    const b = await signedIn(s, user);
    const newPassword = 'a much better password';
    const bad = await a.call('POST', '/password', { currentPassword: 'not it', newPassword });
    expect(bad.status).toBe(401);
    const short = await a.call('POST', '/password', { currentPassword: user.password, newPassword: 'short' });
    expect(short.status).toBe(400);
    expect((await errorOf(short)).code).toBe('VALIDATION_ERROR');
    const ok = await a.call('POST', '/password', { currentPassword: user.password, newPassword });
    expect(ok.status).toBe(204);
    expect((await a.call('GET', '/session')).status).toBe(200);
    expect((await b.call('GET', '/session')).status).toBe(401);
    expect((await dashboardClient(s).signIn(user.email, user.password)).status).toBe(401);
    expect((await dashboardClient(s).signIn(user.email, newPassword)).status).toBe(200);
  });

  test('keys: the secret once and it works, the list never shows it, 5 active at most, revoke; another account’s key is 404', async () => {
    const user = await newDashboardUser(s);
    const c = await signedIn(s, user);
    const res = await c.call('POST', '/keys', { name: 'laptop' });
    expect(res.status).toBe(201);
    const created = KeyCreated.parse(await res.json());
    expect(created.key).toMatchObject({ name: 'laptop', isActive: true, revokedAt: null });
    expect((await s.api('/v1/balance', { key: created.secret })).status).toBe(200);
    const listText = await (await c.call('GET', '/keys')).text();
    expect(listText).not.toContain(created.secret);
    const { keys } = KeyList.parse(JSON.parse(listText));
    expect(keys.map((k) => k.name)).toEqual(['unnamed', 'laptop']); // the account's first key has no name

    for (let i = keys.length; i < 5; i++) expect((await c.call('POST', '/keys', { name: `k${i}` })).status).toBe(201);
    const sixth = await c.call('POST', '/keys', { name: 'one too many' });
    expect(sixth.status).toBe(409);
    expect((await errorOf(sixth)).code).toBe('API_KEY_LIMIT_REACHED');

    const other = await signedIn(s, await newDashboardUser(s));
    const foreign = await other.call('DELETE', `/keys/${created.key.id}`);
    expect(foreign.status).toBe(404);
    expect((await s.api('/v1/balance', { key: created.secret })).status).toBe(200);

    expect((await c.call('DELETE', `/keys/${created.key.id}`)).status).toBe(204);
    expect((await s.api('/v1/balance', { key: created.secret })).status).toBe(403);
    const after = KeyList.parse(await (await c.call('GET', '/keys')).json());
    expect(after.keys.find((k) => k.id === created.key.id)).toMatchObject({ isActive: false });
    expect((await c.call('POST', '/keys', { name: 'replacement' })).status).toBe(201);
  });

  test('webhooks: secret once, re-enable after 5 failures, a signed test event, deliveries; another account gets 404', async () => {
    const user = await newDashboardUser(s);
    const c = await signedIn(s, user);
    const res = await c.call('POST', '/webhooks', { url: receiver.url(`/dash-${dialect}`) });
    expect(res.status).toBe(201);
    const hook = DashboardWebhookCreated.parse(await res.json());
    expect(hook.secret).toMatch(/^whsec_/);
    const listed = async () => DashboardWebhookList.parse(await (await c.call('GET', '/webhooks')).json()).webhooks[0];
    expect(JSON.stringify(await listed())).not.toContain(hook.secret);

    for (let i = 0; i < 5; i++) await recordDeliveryOutcome(s.rt.db, hook.id, { ok: false, error: 'HTTP 502' });
    expect(await listed()).toMatchObject({ isActive: false, failCount: 5, lastError: 'HTTP 502' });
    const enabled = await c.call('POST', `/webhooks/${hook.id}/enable`);
    expect(enabled.status).toBe(200);
    expect(await enabled.json()).toMatchObject({ id: hook.id, isActive: true, failCount: 0, lastError: null });

    const test = await c.call('POST', `/webhooks/${hook.id}/test`);
    expect(test.status).toBe(200);
    const outcome = WebhookTestResult.parse(await test.json());
    expect(outcome).toMatchObject({ statusCode: 200, error: null });
    const [got] = await receiver.waitFor(`/dash-${dialect}`, 1);
    assert(got, 'no webhook request received');
    expect(verifySignature(got.raw, hook.secret, got.headers['x-webhook-signature'])).toBe(true);
    expect(WebhookPayload.parse(JSON.parse(got.raw.toString())).data.metadata).toEqual({ test: true });

    // A real delivery through the outbox and the dispatcher shows in the deliveries list.
    const { job } = await commitFinishedJob(s.rt, user.id, { outcome: 'FAILED' });
    for (const row of await listPendingDeliveries(s.rt.db, 100)) {
      if (row.job_id === job.id) await deliverOne(s.rt, row);
    }
    const deliveries = DeliveryList.parse(await (await c.call('GET', `/webhooks/${hook.id}/deliveries`)).json());
    // Newest first: the job's delivery, then the test event sent before it (listed, with no job).
    expect(deliveries.deliveries).toHaveLength(2);
    expect(deliveries.deliveries[0]).toMatchObject({
      jobId: job.id,
      event: 'job.failed',
      outcome: 'delivered',
      statusCode: 200,
      error: null,
    });
    expect(deliveries.deliveries[1]).toMatchObject({
      jobId: null,
      event: 'test',
      outcome: 'delivered',
      statusCode: 200,
    });
    expect(deliveries.deliveries[0]!.durationMs).toBeGreaterThanOrEqual(0);

    const other = await signedIn(s, await newDashboardUser(s));
    for (const [method, path] of [
      ['POST', `/webhooks/${hook.id}/enable`],
      ['POST', `/webhooks/${hook.id}/test`],
      ['GET', `/webhooks/${hook.id}/deliveries`],
      ['DELETE', `/webhooks/${hook.id}`],
    ] as const) {
      const r = await other.call(method, path);
      expect(r.status, `${method} ${path}`).toBe(404);
      expect((await errorOf(r)).code).toBe('WEBHOOK_NOT_FOUND');
    }
    expect((await c.call('DELETE', `/webhooks/${hook.id}`)).status).toBe(204);
    expect(DashboardWebhookList.parse(await (await c.call('GET', '/webhooks')).json()).webhooks).toEqual([]);
  });
});
