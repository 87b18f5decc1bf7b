import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dashboardClient } from './helpers/dashboard.ts';
import { listLedger } from '../src/store/credits.ts';
import { hashApiKey } from '../src/domain/api-key.ts';
import { freshDatabase } from './helpers/db.ts';
import { pendingJobRow } from './helpers/job-row.ts';
import { migrate } from '../src/store/db.ts';
import { sql } from 'kysely';

type ErrorBody = { error: { code: string; message: string } };

describe.each(['sqlite', 'postgres'] as const)('admin API on %s', (dialect) => {
  let s: TestServer;
  let admin: { id: string; key: string };
  let user: { id: string; key: string };

  beforeAll(async () => {
    s = await startTestServer(dialect, { TRUST_PROXY: 'loopback', RATE_LIMIT_PER_MINUTE: '100000' });
    // The first account of an instance is its admin; the next one is not.
    admin = await s.newAccount();
    user = await s.newAccount();
  });
  afterAll(async () => {
    await s?.close();
  });

  const as = (key: string, method: string, path: string, json?: unknown) =>
    s.api(path, { key, method, ...(json === undefined ? {} : { json }) });
  const errorOf = async (res: Response) => ((await res.json()) as ErrorBody).error;

  test('done when: an admin key creates an account, grants it 600 s, creates its key, and that key sees the grant', async () => {
    const email = `buyer-${dialect}@example.com`;
    const created = await as(admin.key, 'POST', '/v1/admin/accounts', { email });
    expect(created.status).toBe(201);
    const account = (await created.json()) as { id: string; email: string; balanceSeconds: number };
    expect(account.id).toMatch(/^acct_/);
    expect(account.email).toBe(email);
    const free = s.rt.config.limits.freeCreditSeconds;
    expect(account.balanceSeconds).toBe(free);

    const granted = await as(admin.key, 'POST', `/v1/admin/accounts/${account.id}/credits`, {
      seconds: 600,
      note: 'order 1234',
    });
    expect(granted.status).toBe(200);
    expect(await granted.json()).toMatchObject({
      accountId: account.id,
      appliedSeconds: 600,
      balanceSeconds: free + 600,
    });

    const keyRes = await as(admin.key, 'POST', `/v1/admin/accounts/${account.id}/keys`);
    expect(keyRes.status).toBe(201);
    const key = (await keyRes.json()) as { key: string; id: string; accountId: string };
    expect(key.key).toMatch(/^sk_live_/);
    expect(key.accountId).toBe(account.id);
    // Stored hashed like every key: the clear key is nowhere in the table.
    const row = await s.rt.db.selectFrom('api_keys').selectAll().where('id', '=', key.id).executeTakeFirstOrThrow();
    expect(row.hash).toBe(hashApiKey(key.key));
    expect(JSON.stringify(row)).not.toContain(key.key);

    const balance = await s.api('/v1/balance', { key: key.key });
    expect(balance.status).toBe(200);
    const body = (await balance.json()) as Record<string, unknown>;
    expect(body).toMatchObject({
      balanceSeconds: free + 600,
      balanceMinutes: Math.floor((free + 600) / 60),
      metering: 'on',
    });
    const ledger = await listLedger(s.rt.db, account.id);
    expect(ledger.find((l) => l.kind === 'grant' && l.note === 'order 1234')?.seconds).toBe(600);
  });

  test('done when: a non-admin key gets 403 ADMIN_REQUIRED in the contract body, on every admin route', async () => {
    const routes: Array<[string, string, unknown?]> = [
      ['POST', '/v1/admin/accounts', { email: 'x@example.com' }],
      ['GET', '/v1/admin/accounts'],
      ['GET', `/v1/admin/accounts/${admin.id}`],
      ['POST', `/v1/admin/accounts/${user.id}/credits`, { seconds: 600, note: 'free money' }],
      ['POST', `/v1/admin/accounts/${user.id}/keys`],
      ['POST', `/v1/admin/accounts/${admin.id}/disable`],
      ['POST', `/v1/admin/accounts/${admin.id}/enable`],
      ['GET', `/v1/admin/accounts/${user.id}/usage`],
    ];
    for (const [method, path, json] of routes) {
      for (const prefix of ['', '/api']) {
        const res = await as(user.key, method, `${prefix}${path}`, json);
        expect(res.status, `${method} ${prefix}${path}`).toBe(403);
        const body = (await res.json()) as ErrorBody;
        expect(Object.keys(body)).toEqual(['error']);
        expect(body.error.code).toBe('ADMIN_REQUIRED');
        expect(body.error.message).toEqual(expect.any(String));
      }
    }
    // Nothing happened: the user's balance did not move.
    expect(await (await s.api('/v1/balance', { key: user.key })).json()).toMatchObject({ balanceSeconds: 300 });
    // Without a key at all it is the usual 401.
    expect((await s.api('/v1/admin/accounts')).status).toBe(401);
  });

  test('the admin routes answer under /api/v1 as under /v1', async () => {
    const res = await as(admin.key, 'GET', `/api/v1/admin/accounts/${user.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: user.id, isAdmin: false, disabled: false, activeKeys: 1 });
    const mine = await as(admin.key, 'GET', `/v1/admin/accounts/${admin.id}`);
    expect(await mine.json()).toMatchObject({ id: admin.id, isAdmin: true });
  });

  test('creating: duplicate email 409, bad email or password 400, password lets it sign in', async () => {
    const email = `Dup-${dialect}@Example.com`;
    const first = await as(admin.key, 'POST', '/v1/admin/accounts', { email, password: 'long enough pw' });
    expect(first.status).toBe(201);
    const again = await as(admin.key, 'POST', '/v1/admin/accounts', { email: email.toLowerCase() });
    expect(again.status).toBe(409);
    expect((await errorOf(again)).code).toBe('EMAIL_TAKEN');
    for (const body of [{ email: 'not-an-email' }, { email: '' }, {}, { email: 'a@b.c', password: 'short' }, []]) {
      const res = await as(admin.key, 'POST', '/v1/admin/accounts', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await errorOf(res)).code).toBe('VALIDATION_ERROR');
    }
    const bad = await s.api('/v1/admin/accounts', {
      key: admin.key,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"email":',
    });
    expect(bad.status).toBe(400);
    expect((await errorOf(bad)).code).toBe('INVALID_JSON');
    const c = dashboardClient(s);
    expect((await c.signIn(email, 'long enough pw')).status).toBe(200);
  });

  test('listing: paged, oldest first, searched by email substring (case-insensitive, % literal)', async () => {
    for (const n of [1, 2, 3]) {
      expect(
        (await as(admin.key, 'POST', '/v1/admin/accounts', { email: `page${n}-list@${dialect}.test` })).status,
      ).toBe(201);
    }
    const page1 = (await (await as(admin.key, 'GET', `/v1/admin/accounts?q=LIST@${dialect}&limit=2`)).json()) as any;
    expect(page1.accounts.map((a: any) => a.email)).toEqual([
      `page1-list@${dialect}.test`,
      `page2-list@${dialect}.test`,
    ]);
    expect(page1.pagination).toEqual({ total: 3, limit: 2, offset: 0, hasMore: true });
    const page2 = (await (
      await as(admin.key, 'GET', `/v1/admin/accounts?q=list@${dialect}&limit=2&offset=2`)
    ).json()) as any;
    expect(page2.accounts.map((a: any) => a.email)).toEqual([`page3-list@${dialect}.test`]);
    expect(page2.pagination.hasMore).toBe(false);
    const none = (await (await as(admin.key, 'GET', '/v1/admin/accounts?q=%25')).json()) as any;
    expect(none.accounts).toEqual([]);
    const all = (await (await as(admin.key, 'GET', '/v1/admin/accounts?limit=100')).json()) as any;
    expect(all.accounts[0].id).toBe(admin.id);
    expect(all.pagination.total).toBeGreaterThanOrEqual(6);
    for (const q of ['limit=0', 'limit=101', 'offset=-1', 'limit=abc']) {
      const res = await as(admin.key, 'GET', `/v1/admin/accounts?${q}`);
      expect(res.status, q).toBe(400);
      expect((await errorOf(res)).code).toBe('VALIDATION_ERROR');
    }
  });

  test('credits: negative takes back but never below zero, recorded with the note; bad bodies 400; unknown id 404', async () => {
    const target = await s.newAccount(100);
    let res = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/credits`, { seconds: -40, note: 'refund' });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ appliedSeconds: -40, balanceSeconds: 60 });
    res = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/credits`, { seconds: -500, note: 'chargeback' });
    expect(await res.json()).toMatchObject({ appliedSeconds: -60, balanceSeconds: 0, balanceFormatted: '0 seconds' });
    res = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/credits`, { seconds: -5, note: 'again' });
    expect(await res.json()).toMatchObject({ appliedSeconds: 0, balanceSeconds: 0 });
    const ledger = await listLedger(s.rt.db, target.id);
    expect(ledger.filter((l) => l.kind === 'deduct').map((l) => [l.seconds, l.delta_seconds, l.note])).toEqual([
      [40, -40, 'refund'],
      [60, -60, 'chargeback'],
    ]);
    for (const body of [
      { seconds: 0, note: 'x' },
      { seconds: 1.5, note: 'x' },
      { seconds: '10', note: 'x' },
      { seconds: 10 },
      { seconds: 10, note: '' },
      { seconds: 10, note: 'a\u0000b' },
      { seconds: 2e9, note: 'x' },
    ]) {
      const r = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/credits`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect((await errorOf(r)).code).toBe('VALIDATION_ERROR');
    }
    for (const [method, path, json] of [
      ['POST', '/v1/admin/accounts/acct_nope/credits', { seconds: 5, note: 'x' }],
      ['POST', '/v1/admin/accounts/acct_nope/keys', undefined],
      ['POST', '/v1/admin/accounts/acct_nope/disable', undefined],
      ['GET', '/v1/admin/accounts/acct_nope', undefined],
      ['GET', '/v1/admin/accounts/acct_nope/usage', undefined],
    ] as const) {
      const r = await as(admin.key, method, path, json);
      expect(r.status, path).toBe(404);
      expect((await errorOf(r)).code).toBe('ACCOUNT_NOT_FOUND');
    }
  });

  test('a credit grant with an Idempotency-Key is granted once however often it is retried', async () => {
    const target = await s.newAccount(0);
    const send = () =>
      s.api(`/v1/admin/accounts/${target.id}/credits`, {
        key: admin.key,
        method: 'POST',
        headers: { 'idempotency-key': `grant-${target.id}` },
        json: { seconds: 60, note: 'once' },
      });
    const [a, b] = [await send(), await send()];
    expect(a.status).toBe(200);
    expect(b.headers.get('idempotent-replayed')).toBe('true');
    expect(await (await s.api('/v1/balance', { key: target.key })).json()).toMatchObject({ balanceSeconds: 60 });
  });

  test('keys: at most 5 active, 409 past that; a name is kept', async () => {
    const target = await s.newAccount(0); // has one key already
    const named = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/keys`, { name: 'billing backend' });
    expect(await named.json()).toMatchObject({ name: 'billing backend' });
    for (let i = 0; i < 3; i++)
      expect((await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/keys`)).status).toBe(201);
    const over = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/keys`);
    expect(over.status).toBe(409);
    expect((await errorOf(over)).code).toBe('API_KEY_LIMIT_REACHED');
  });

  test('issue 41 done when: three grants of 1e9 s answer 200 and add up; twelve racing key creations leave 5 active', async () => {
    const target = await s.newAccount(0);
    for (let i = 1; i <= 3; i++) {
      const res = await as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/credits`, {
        seconds: 1_000_000_000,
        note: `big grant ${i}`,
      });
      expect(res.status).toBe(200);
      expect(((await res.json()) as { balanceSeconds: number }).balanceSeconds).toBe(i * 1_000_000_000);
    }
    const balance = (await (await s.api('/v1/balance', { key: target.key })).json()) as { balanceSeconds: number };
    expect(balance.balanceSeconds).toBe(3_000_000_000);
    const racing = await Promise.all(
      Array.from({ length: 12 }, () => as(admin.key, 'POST', `/v1/admin/accounts/${target.id}/keys`)),
    );
    // The account had one key: four more are made, the other eight are refused.
    expect(racing.filter((r) => r.status === 201)).toHaveLength(4);
    for (const r of racing.filter((r) => r.status !== 201)) {
      expect(r.status).toBe(409);
      expect((await errorOf(r)).code).toBe('API_KEY_LIMIT_REACHED');
    }
    const listed = (await (await as(admin.key, 'GET', `/v1/admin/accounts/${target.id}`)).json()) as {
      activeKeys: number;
    };
    expect(listed.activeKeys).toBe(5);
  });

  test('disabling: keys and sessions get 403 ACCOUNT_DISABLED, sign-in refused; enabling restores them', async () => {
    const email = `disable-me-${dialect}@example.com`;
    const created = (await (
      await as(admin.key, 'POST', '/v1/admin/accounts', { email, password: 'a fine password' })
    ).json()) as {
      id: string;
    };
    const { key } = (await (await as(admin.key, 'POST', `/v1/admin/accounts/${created.id}/keys`)).json()) as {
      key: string;
    };
    const session = dashboardClient(s);
    expect((await session.signIn(email, 'a fine password')).status).toBe(200);
    const second = dashboardClient(s);
    expect((await second.signIn(email, 'a fine password')).status).toBe(200);

    const off = await as(admin.key, 'POST', `/v1/admin/accounts/${created.id}/disable`);
    expect(off.status).toBe(200);
    expect(await off.json()).toMatchObject({ disabled: true, disabledAt: expect.any(String) });
    const viaKey = await s.api('/v1/balance', { key });
    expect(viaKey.status).toBe(403);
    expect((await errorOf(viaKey)).code).toBe('ACCOUNT_DISABLED');
    const viaSession = await session.call('GET', '/overview');
    expect(viaSession.status).toBe(403);
    expect((await errorOf(viaSession)).code).toBe('ACCOUNT_DISABLED');
    const signIn = await dashboardClient(s).signIn(email, 'a fine password');
    expect(signIn.status).toBe(403);
    expect((await errorOf(signIn)).code).toBe('ACCOUNT_DISABLED');
    // A wrong password still says only that the credentials are wrong.
    expect((await errorOf(await dashboardClient(s).signIn(email, 'not the password'))).code).toBe(
      'INVALID_CREDENTIALS',
    );

    const self = await as(admin.key, 'POST', `/v1/admin/accounts/${admin.id}/disable`);
    expect(self.status).toBe(409);
    expect((await errorOf(self)).code).toBe('CANNOT_DISABLE_SELF');

    // A refused sign-in sets no cookie; a disabled session can still sign out, nothing else.
    const refused = dashboardClient(s);
    await refused.signIn(email, 'a fine password');
    expect(refused.cookie).toBeNull();
    expect((await second.call('DELETE', '/session')).status).toBe(204);
    expect((await second.call('GET', '/session')).status).toBe(401);

    const on = await as(admin.key, 'POST', `/v1/admin/accounts/${created.id}/enable`);
    expect(await on.json()).toMatchObject({ disabled: false, disabledAt: null });
    expect((await s.api('/v1/balance', { key })).status).toBe(200);
    // The session kept through the disabling works again.
    expect((await session.call('GET', '/overview')).status).toBe(200);
  });

  test('usage over a period: charged seconds and jobs by kind; from/to checked', async () => {
    const target = await s.newAccount(1000);
    const jobIds: string[] = [];
    // Jobs and their ledger lines as the worker leaves them (inserted directly: no separation needed).
    const at = (iso: string) => iso;
    for (const [kind, status, charged, created] of [
      ['stem', 'COMPLETED', 30, '2026-10-05T10:00:00.000Z'],
      ['stem', 'FAILED', 0, '2026-10-06T10:00:00.000Z'],
      ['denoise', 'COMPLETED', 12, '2026-10-07T10:00:00.000Z'],
      ['stem', 'COMPLETED', 99, '2026-09-01T10:00:00.000Z'],
    ] as const) {
      const id = `job_usage_${dialect}_${jobIds.length}`;
      jobIds.push(id);
      await s.rt.db
        .insertInto('jobs')
        .values(
          pendingJobRow(target.id, {
            id,
            kind,
            status,
            progress: 100,
            progress_phase: status === 'COMPLETED' ? 'completed' : 'failed',
            source_key: null,
            duration_seconds: charged,
            credits_required: charged,
            credits_charged: charged,
            attempts: 1,
            next_attempt_at: created,
            created_at: at(created),
            completed_at: created,
          }),
        )
        .execute();
      if (charged > 0) {
        await s.rt.db
          .insertInto('credit_ledger')
          .values({
            id: `led_usage_${id}`,
            account_id: target.id,
            kind: 'charge',
            seconds: charged,
            delta_seconds: 0,
            job_id: id,
            note: null,
            created_at: created,
          })
          .execute();
      }
    }
    const res = await as(admin.key, 'GET', `/v1/admin/accounts/${target.id}/usage?from=2026-10-01&to=2026-11-01`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      accountId: target.id,
      from: '2026-10-01T00:00:00.000Z',
      to: '2026-11-01T00:00:00.000Z',
      chargedSeconds: 42,
      grantedSeconds: 0,
      deductedSeconds: 0,
      byKind: {
        stem: { jobs: 2, completed: 1, failed: 1, chargedSeconds: 30 },
        denoise: { jobs: 1, completed: 1, failed: 0, chargedSeconds: 12 },
      },
    });
    // The default period is the last 30 days: the free grant of today, none of those jobs.
    const recent = (await (await as(admin.key, 'GET', `/v1/admin/accounts/${target.id}/usage`)).json()) as any;
    expect(recent).toMatchObject({ chargedSeconds: 0, grantedSeconds: 1000, byKind: {} });
    for (const q of ['from=2026-11-01&to=2026-10-01', 'from=yesterday', 'to=2026-13-01']) {
      const r = await as(admin.key, 'GET', `/v1/admin/accounts/${target.id}/usage?${q}`);
      expect(r.status, q).toBe(400);
      expect((await errorOf(r)).code).toBe('VALIDATION_ERROR');
    }
  });

  test('the OpenAPI document has every admin route with its errors', async () => {
    const doc = (await (await s.api('/v1/openapi.json')).json()) as any;
    const ops: Array<[string, string]> = [
      ['/v1/admin/accounts', 'post'],
      ['/v1/admin/accounts', 'get'],
      ['/v1/admin/accounts/{id}', 'get'],
      ['/v1/admin/accounts/{id}/disable', 'post'],
      ['/v1/admin/accounts/{id}/enable', 'post'],
      ['/v1/admin/accounts/{id}/credits', 'post'],
      ['/v1/admin/accounts/{id}/keys', 'post'],
      ['/v1/admin/accounts/{id}/usage', 'get'],
    ];
    for (const [path, method] of ops) {
      const op = doc.paths[path]?.[method];
      assert(op, `${method} ${path} is missing`);
      expect(op.tags).toEqual(['Admin']);
      expect(op.responses['403'].description).toContain('ADMIN_REQUIRED');
    }
    expect(doc.paths['/v1/admin/accounts'].post.responses['409'].description).toContain('EMAIL_TAKEN');
    expect(doc.paths['/v1/admin/accounts/{id}/keys'].post.requestBody.required).toBe(false);
    expect(doc.paths['/v1/admin/accounts/{id}/credits'].post.requestBody.required).toBe(true);
    expect(doc.components.schemas.AdminAccount).toBeTruthy();
  });
});

describe.each(['sqlite', 'postgres'] as const)('migration 009 on %s', (dialect) => {
  test('the oldest account of an existing install becomes its admin', async () => {
    // As an install before 009 left it: two accounts, nobody admin; then the service's start migrates.
    const t = await freshDatabase(dialect, '008-job-names');
    try {
      for (const [email, createdAt] of [
        ['new@example.com', '2026-02-01T00:00:00.000Z'],
        ['old@example.com', '2026-01-01T00:00:00.000Z'],
      ] as const) {
        await sql`insert into accounts (id, email, created_at) values (${`acct_${email.slice(0, 3)}`}, ${email}, ${createdAt})`.execute(
          t.db,
        );
      }
      await migrate(t, t.schema ? { schema: t.schema } : {});
      const rows = await t.db.selectFrom('accounts').select(['email', 'is_admin']).orderBy('email').execute();
      expect(rows).toEqual([
        { email: 'new@example.com', is_admin: 0 },
        { email: 'old@example.com', is_admin: 1 },
      ]);
    } finally {
      await t.destroy();
    }
  });
});
