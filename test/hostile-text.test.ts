import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { errorOf } from './helpers/errors.ts';
import { newDashboardUser, sessionClient } from './helpers/dashboard.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';
import { createApiKey } from '../src/store/api-keys.ts';

/**
 * Issue 41 (docs/text.md), over real HTTP on both databases: text PostgreSQL cannot store (NUL)
 * answers 400 in the contract's body wherever it is sent, signed in or not, before any query; text
 * that could pass for other text (bidi, zero-width, control characters) is refused where a person
 * types it and never reaches a download's name; a number too large for a double is named so.
 */
describe.each(dialects)('hostile text on %s', (dialect) => {
  let s: TestServer;
  let user: { id: string; key: string };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    user = await s.newAccount();
  });
  afterAll(async () => {
    await s?.close();
  });

  const postJson = (path: string, body: string) =>
    s.api(path, { method: 'POST', key: user.key, headers: { 'content-type': 'application/json' }, body });
  /** A key of the instance's admin (the first account). */
  const adminKey = async () => {
    const admin = await s.rt.db.selectFrom('accounts').select('id').where('is_admin', '=', 1).executeTakeFirstOrThrow();
    return (await createApiKey(s.rt.db, admin.id)).key;
  };

  test('NUL in a sign-in email, an id, a search or an upload key is a 4xx, never a 500', async () => {
    const signIn = await fetch(`${s.base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a\u0000@x.y', password: 'whatever-password' }),
    });
    expect(signIn.status).toBe(400);
    expect((await errorOf(signIn)).code).toBe('VALIDATION_ERROR');
    const asAdmin = await adminKey();
    const cases: Array<[string, string, string]> = [
      ['GET', '/v1/jobs/x%00', user.key],
      ['GET', '/v1/denoise-jobs/x%00', user.key],
      ['GET', '/v1/video-jobs/x%00', user.key],
      ['POST', '/v1/jobs/x%00/cancel', user.key],
      ['DELETE', '/v1/webhooks/wh_%00', user.key],
      ['GET', '/v1/admin/accounts?q=%00', asAdmin],
      ['GET', '/v1/admin/accounts/acct_%00', asAdmin],
      ['GET', '/v1/jobs?status=%00', user.key],
    ];
    for (const [method, path, key] of cases) {
      const res = await s.api(path, { method, key });
      expect(res.status, `${method} ${path}`).toBe(400);
      expect((await errorOf(res)).message, path).toMatch(/NUL/);
    }
    for (const [path, body] of [
      ['/v1/jobs', { uploadKey: 'upl_\u0000x' }],
      ['/v1/denoise-jobs', { inputFileName: 'a.wav', inputFilePath: 'u\u0000', inputFileSize: 1, durationSeconds: 6 }],
      ['/v1/jobs', { uploadKey: 'upl_x', metadata: { 'k\u0000': 'v' } }],
      ['/v1/webhooks', { url: 'http://127.0.0.1:9/\ud800' }],
    ] as const) {
      const res = await s.api(path, { method: 'POST', key: user.key, json: body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect((await errorOf(res)).code).toBe('VALIDATION_ERROR');
    }
    const dash = await sessionClient(s, (await newDashboardUser(s)).id);
    const search = await dash.call('GET', '/jobs?q=%00');
    expect(search.status).toBe(400);
    expect((await errorOf(search)).code).toBe('VALIDATION_ERROR');
  });

  test('bidi, zero-width and control characters are refused in emails, names and notes', async () => {
    const asAdmin = await adminKey();
    for (const email of ['evil\u202e@x.y', 'a\u200b@x.y', 'a\u0007@x.y']) {
      const res = await s.api('/v1/admin/accounts', { method: 'POST', key: asAdmin, json: { email } });
      expect(res.status, JSON.stringify(email)).toBe(400);
      expect((await errorOf(res)).message).toMatch(/'email'/);
    }
    const grant = await s.api(`/v1/admin/accounts/${user.id}/credits`, {
      method: 'POST',
      key: asAdmin,
      json: { seconds: 5, note: 'refund \u2066ok\u2069' },
    });
    expect(grant.status).toBe(400);
    const dashUser = await newDashboardUser(s);
    const dash = await sessionClient(s, dashUser.id);
    expect((await dash.call('POST', '/keys', { name: 'laptop\u200d' })).status).toBe(400);
    const signIn = await fetch(`${s.base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `${dashUser.email}\u202e`, password: dashUser.password }),
    });
    expect(signIn.status).toBe(400);
    // A name stored before the rule (or a title from a site) never reaches a download's file name.
    const { job } = await commitFinishedJob(s.rt, dashUser.id, {
      outcome: 'COMPLETED',
      outputs: { vocals: Buffer.from('ID3 not really audio') },
    });
    await s.rt.db.updateTable('jobs').set({ name: '\u202egpj' }).where('id', '=', job.id).execute();
    expect((await dash.call('PATCH', `/jobs/${job.id}`, { name: '\u202egpj' })).status).toBe(400);
    const zip = await dash.call('GET', `/jobs/${job.id}/outputs.zip`);
    expect(zip.status).toBe(200);
    expect(zip.headers.get('content-disposition')).toBe(`attachment; filename="gpj.zip"; filename*=UTF-8''gpj.zip`);
    await zip.arrayBuffer();
  });

  test('1e400 is said to be too large, not "expected number, got number"', async () => {
    const err = await errorOf(
      await postJson(
        '/v1/denoise-jobs',
        '{"inputFileName":"a.wav","inputFilePath":"upl_x","inputFileSize":1e400,"durationSeconds":6}',
      ),
    );
    expect(err.message).toBe(
      "Invalid field 'inputFileSize' in body: expected a finite number; the number sent is too large to represent (it reads as Infinity)",
    );
  });
});
