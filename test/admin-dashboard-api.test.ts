import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { BEHIND_LOCAL_PROXY, type DashboardClient, newDashboardUser, signedIn } from './helpers/dashboard.ts';

type ErrorBody = { error: { code: string; message: string } };

/** The dashboard's admin pages' API: session cookie, CSRF token on changes, admins only. */
describe.each(['sqlite', 'postgres'] as const)('dashboard admin API on %s', (dialect) => {
  let s: TestServer;
  let admin: DashboardClient;
  let user: DashboardClient;
  let userId = '';

  beforeAll(async () => {
    s = await startTestServer(dialect, BEHIND_LOCAL_PROXY);
    const a = await newDashboardUser(s);
    const u = await newDashboardUser(s);
    userId = u.id;
    admin = await signedIn(s, a);
    user = await signedIn(s, u);
  });
  afterAll(async () => {
    await s?.close();
  });

  const codeOf = async (res: Response) => ((await res.json()) as ErrorBody).error.code;

  test('the session says who is an admin', async () => {
    expect(await (await admin.call('GET', '/session')).json()).toMatchObject({ account: { isAdmin: true } });
    expect(await (await user.call('GET', '/session')).json()).toMatchObject({ account: { isAdmin: false } });
  });

  test('a signed-in non-admin gets 403 ADMIN_REQUIRED on every admin route', async () => {
    for (const [method, path, json] of [
      ['GET', '/admin/accounts'],
      ['POST', '/admin/accounts', { email: 'sneaky@example.com' }],
      ['GET', `/admin/accounts/${userId}`],
      ['POST', `/admin/accounts/${userId}/credits`, { seconds: 999, note: 'me' }],
      ['POST', `/admin/accounts/${userId}/keys`, {}],
      ['POST', `/admin/accounts/${userId}/disable`],
      ['GET', `/admin/accounts/${userId}/usage`],
    ] as const) {
      const res = await user.call(method, path, json);
      expect(res.status, path).toBe(403);
      expect(await codeOf(res)).toBe('ADMIN_REQUIRED');
    }
  });

  test('changes need the CSRF token and this site as Origin, even for an admin', async () => {
    let res = await admin.call(
      'POST',
      `/admin/accounts/${userId}/credits`,
      { seconds: 5, note: 'x' },
      { 'x-csrf-token': 'nope' },
    );
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe('CSRF_TOKEN_INVALID');
    res = await admin.call(
      'POST',
      `/admin/accounts/${userId}/credits`,
      { seconds: 5, note: 'x' },
      {
        origin: 'https://evil.example',
      },
    );
    expect(res.status).toBe(403);
    expect(await codeOf(res)).toBe('CSRF_TOKEN_INVALID');
    expect(await (await admin.call('GET', `/admin/accounts/${userId}`)).json()).toMatchObject({ balanceSeconds: 300 });
  });

  test('an admin creates, searches, grants, issues a key, reads usage and disables', async () => {
    const created = await admin.call('POST', '/admin/accounts', { email: `dash-${dialect}@example.com` });
    expect(created.status).toBe(201);
    const { id } = (await created.json()) as { id: string };
    const list = (await (await admin.call('GET', `/admin/accounts?q=DASH-${dialect}`)).json()) as any;
    expect(list.accounts.map((a: any) => a.id)).toEqual([id]);
    const granted = await admin.call('POST', `/admin/accounts/${id}/credits`, {
      seconds: 600,
      note: 'dashboard grant',
    });
    expect(await granted.json()).toMatchObject({ appliedSeconds: 600, balanceSeconds: 900 });
    const key = (await (await admin.call('POST', `/admin/accounts/${id}/keys`, {})).json()) as { key: string };
    expect(await (await s.api('/v1/balance', { key: key.key })).json()).toMatchObject({ balanceSeconds: 900 });
    const usage = (await (await admin.call('GET', `/admin/accounts/${id}/usage`)).json()) as any;
    expect(usage).toMatchObject({ grantedSeconds: 900, chargedSeconds: 0 });
    const self = await admin.call(
      'POST',
      `/admin/accounts/${((await (await admin.call('GET', '/session')).json()) as any).account.id}/disable`,
    );
    expect(await codeOf(self)).toBe('CANNOT_DISABLE_SELF');
    const off = await admin.call('POST', `/admin/accounts/${id}/disable`);
    expect(await off.json()).toMatchObject({ disabled: true });
    expect((await s.api('/v1/balance', { key: key.key })).status).toBe(403);
  });

  test('the overview and the capabilities say metering is on', async () => {
    expect(await (await user.call('GET', '/overview')).json()).toMatchObject({ metering: true });
    expect(await (await user.call('GET', '/capabilities')).json()).toMatchObject({ metering: true });
  });
});
