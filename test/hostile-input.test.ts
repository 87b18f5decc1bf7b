import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dashboardClient } from './helpers/dashboard.ts';
import { SIGN_IN_PER_ADDRESS } from '../src/dashboard/throttle.ts';
import { dialects } from './helpers/db.ts';
import { newDashboardUser, sessionClient } from './helpers/dashboard.ts';
import { commitFinishedJob } from './helpers/finished-job.ts';

/**
 * Issue 14, findings 4, 5, 7, 9, 10 and 11, over real HTTP: every hostile input answers the
 * contract's `{error:{code,message}}` with a 4xx, slow bodies are cut, credentials stay out of the
 * log, and client-sent names are sanitised. Issue 41: on both databases, since PostgreSQL refuses
 * text (NUL) that SQLite stores.
 */
describe.each(dialects)('hostile input on %s', (dialect) => {
  let s: TestServer;
  let user: { id: string; key: string };
  const logLines: string[] = [];
  const logStream = new Writable({
    write(chunk, _enc, done) {
      logLines.push(String(chunk));
      done();
    },
  });

  beforeAll(async () => {
    s = await startTestServer(
      dialect,
      { ALLOW_PRIVATE_URLS: 'true', REQUEST_TIMEOUT_SECONDS: '2', LOG_LEVEL: 'info' },
      { logger: true, logStream },
    );
    user = await s.newAccount();
  });
  afterAll(async () => {
    await s?.close();
  });

  const errorOf = async (res: Response) => {
    const body = (await res.json()) as { error: { code: string; message: string } };
    expect(typeof body.error.code).toBe('string');
    expect(typeof body.error.message).toBe('string');
    return body.error;
  };
  const postJson = (path: string, body: string) =>
    s.api(path, { method: 'POST', key: user.key, headers: { 'content-type': 'application/json' }, body });

  test('finding 4: metadata nested 5,000 levels answers 400, not a stack overflow', async () => {
    const deep = `{"uploadKey":"upl_x","metadata":${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}}`;
    const res = await postJson('/v1/jobs', deep);
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toMatch(/nests deeper than 32 levels/);
    // An array nested to the body limit (about 500,000 levels) is refused the same way.
    const arrays = await postJson('/v1/webhooks', `${'['.repeat(400_000)}${']'.repeat(400_000)}`);
    expect(arrays.status).toBe(400);
    expect((await errorOf(arrays)).code).toBe('VALIDATION_ERROR');
    // The server still answers.
    expect((await s.api('/v1/balance', { key: user.key })).status).toBe(200);
  });

  test("finding 5: an id over 100 characters answers the contract's body with a 4xx", async () => {
    for (const path of [`/v1/jobs/${'a'.repeat(101)}`, `/v1/denoise-jobs/${'b'.repeat(5000)}`]) {
      const res = await s.api(path, { key: user.key });
      expect(res.status).toBe(400);
      const err = await errorOf(res);
      expect(err.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(err)).not.toContain('FST_');
    }
    const del = await s.api(`/v1/webhooks/${'c'.repeat(300)}`, { key: user.key, method: 'DELETE' });
    expect(del.status).toBe(400);
    await errorOf(del);
  });

  test('finding 7: a PUT that dribbles its body is cut at REQUEST_TIMEOUT_SECONDS', async () => {
    const grant = (await (
      await s.api('/v1/upload', { method: 'POST', key: user.key, json: { filename: 'slow.wav' } })
    ).json()) as { uploadUrl: string; contentType: string };
    const url = new URL(grant.uploadUrl);
    const socket = connect(Number(url.port), url.hostname);
    const started = Date.now();
    let answer = '';
    socket.on('data', (d) => {
      answer += String(d);
    });
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now() - started)));
    socket.on('error', () => undefined);
    socket.write(
      `PUT ${url.pathname}${url.search} HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: ${grant.contentType}\r\nContent-Length: 1000\r\n\r\n`,
    );
    const dribble = setInterval(() => {
      if (!socket.destroyed) socket.write('x');
    }, 500);
    const elapsed = await Promise.race([closed, new Promise<number>((r) => setTimeout(() => r(-1), 15_000))]);
    clearInterval(dribble);
    socket.destroy();
    expect(elapsed).toBeGreaterThan(1_500);
    expect(elapsed).toBeLessThan(6_000);
    expect(answer).toMatch(/^HTTP\/1\.1 408/);
  }, 20_000);

  test('finding 9: no API key, signature or secret in the log', async () => {
    logLines.length = 0;
    const secretKey = 'sk_live_ThisIsNotARealKeyButLooksLikeOne1234';
    await s.api(`/v1/balance?api_key=${secretKey}&x-api-key=${secretKey}`, { key: user.key });
    await s.api(`/v1/balance?token=tok_123456789`, { headers: { authorization: `Bearer ${secretKey}` } });
    const grant = (await (
      await s.api('/v1/upload', { method: 'POST', key: user.key, json: { filename: 'a.wav' } })
    ).json()) as { uploadUrl: string };
    const sig = new URL(grant.uploadUrl).searchParams.get('sig')!;
    await fetch(grant.uploadUrl, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x' });
    const hook = (await (
      await s.api('/v1/webhooks', { method: 'POST', key: user.key, json: { url: 'http://127.0.0.1:9/h' } })
    ).json()) as { secret: string };
    s.app.log.info({ webhook: { id: 'wh_1', secret: hook.secret }, apiKey: secretKey }, 'a row logged whole');
    const log = logLines.join('');
    expect(log).toContain('/v1/balance');
    expect(log).toContain('[redacted]');
    for (const leaked of [secretKey, user.key, sig, hook.secret, 'tok_123456789']) expect(log).not.toContain(leaked);
  });

  test('finding 9: an unsupported upload names no server path', async () => {
    const grant = (await (
      await s.api('/v1/upload', { method: 'POST', key: user.key, json: { filename: 'text.wav' } })
    ).json()) as { uploadUrl: string; contentType: string };
    const res = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: 'this is plain text, not audio '.repeat(40),
    });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('UNSUPPORTED_FORMAT');
    expect(err.message).not.toContain(s.dataDir);
    expect(err.message).not.toMatch(/\/tmp\/|\.part|in_[0-9A-Za-z]+/);
  });

  test('finding 10: fileName on POST /jobs goes through the file-name sanitiser', async () => {
    const res = await s.api('/v1/jobs', {
      method: 'POST',
      key: user.key,
      json: { uploadKey: 'upl_missing', fileName: 'evil\u0000\r\nSet-Cookie: x\u202Egpj.mp3' },
    });
    // The upload does not exist, so the job is refused; the name is checked where it is parsed.
    expect(res.status).toBe(400);
    const { CreateJobRequest } = await import('../src/contract/jobs.ts');
    const parsed = CreateJobRequest.parse({ uploadKey: 'u', fileName: 'evil\u0000\r\nSet-Cookie: x\u202Egpj.mp3' });
    expect(parsed.fileName).toBe('evilSet-Cookie_ xgpj.mp3');
    expect(CreateJobRequest.parse({ uploadKey: 'u', fileName: '../../etc/passwd' }).fileName).toBe('passwd');
  });

  test('finding 11: validation messages say what is wrong', async () => {
    let err = await errorOf(await postJson('/v1/jobs', '{"uploadKey":123}'));
    expect(err.message).toBe("Invalid field 'uploadKey' in body: expected string, got number");
    err = await errorOf(await postJson('/v1/upload', '{}'));
    expect(err.message).toBe("Invalid field 'filename' in body: it is required");
    err = await errorOf(await postJson('/v1/webhooks', '{"url":"http://127.0.0.1:9/h","colour":"red"}'));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toBe("Unknown field(s) 'colour' in body.");
    err = await errorOf(await postJson('/v1/webhooks', '{"url":"http://127.0.0.1:9/h","__proto__":{"admin":true}}'));
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(err.message).toContain("'__proto__' is not allowed");
    err = await errorOf(await postJson('/v1/webhooks', '[1,2]'));
    expect(err.message).toBe('The request body must be a JSON object (got array).');
    err = await errorOf(await postJson('/v1/webhooks', '{"url": '));
    expect(err.code).toBe('INVALID_JSON');
  });

  /** Sends raw bytes on a new connection and reads the whole answer until the server closes. */
  const rawExchange = (bytes: string) =>
    new Promise<{ status: number; headers: string; body: string }>((resolve, reject) => {
      const u = new URL(s.base);
      const sock = connect(Number(u.port), u.hostname);
      const chunks: Buffer[] = [];
      sock.on('data', (c: Buffer) => chunks.push(c));
      sock.on('error', reject);
      sock.on('close', () => {
        const text = Buffer.concat(chunks).toString('latin1');
        const [head = '', body = ''] = text.split('\r\n\r\n');
        resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(head)?.[1] ?? 0), headers: head, body });
      });
      sock.end(Buffer.from(bytes, 'latin1'));
    });

  test("issue 28: bytes HTTP refuses in a header or the request line get the contract's body, not the framework's", async () => {
    const get = (line: string, ...headers: string[]) =>
      rawExchange(`${line}\r\nHost: 127.0.0.1\r\n${headers.map((h) => `${h}\r\n`).join('')}\r\n`);
    const cases = [
      await get('GET /v1/balance HTTP/1.1', 'X-A: \x01'),
      await get('GET /v1/balance HTTP/1.1', `Authorization: Bearer ${user.key}\x7f`),
      await get('GET /v1/balance HTTP/1.1', 'Bad Name: x'),
      await get('GET /v1/ba lance HTTP/1.1'),
      await rawExchange('\x00\x01\x02 garbage\r\n\r\n'),
    ];
    for (const res of cases) {
      expect(res.status).toBe(400);
      expect(res.headers).toMatch(/content-type: application\/json/i);
      const body = JSON.parse(res.body) as { error: { code: string; message: string } };
      expect(body).toEqual({ error: { code: 'MALFORMED_REQUEST', message: expect.stringMatching(/not valid HTTP/) } });
    }
    // An HTTP major version other than 1 is 505 (issue 41), whether Node's parser knows it or not.
    for (const version of ['9.9', '2.0']) {
      const res = await get(`GET /v1/balance HTTP/${version}`);
      expect(res.status, version).toBe(505);
      expect(JSON.parse(res.body).error.code).toBe('HTTP_VERSION_NOT_SUPPORTED');
    }
    const huge = await get('GET /v1/balance HTTP/1.1', `X-Big: ${'a'.repeat(20_000)}`);
    expect(huge.status).toBe(431);
    expect((JSON.parse(huge.body) as { error: { code: string } }).error.code).toBe('HEADERS_TOO_LARGE');
    // The server still answers, and the key the mangled header carried still works.
    expect((await s.api('/v1/balance', { key: user.key })).status).toBe(200);
  });

  const contractError = (res: { status: number; headers: string; body: string }) => {
    expect(res.headers).toMatch(/content-type: application\/json/i);
    const body = JSON.parse(res.body) as { error: { code: string; message: string } };
    expect(typeof body.error.message).toBe('string');
    return body.error.code;
  };

  test('issue 41: Host, Expect, CONNECT, a long URL and Content-Encoding get the contract body', async () => {
    const noHost = await rawExchange('GET /v1/balance HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect([noHost.status, contractError(noHost)]).toEqual([400, 'MALFORMED_REQUEST']);
    const twoHosts = await rawExchange('GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect([twoHosts.status, contractError(twoHosts)]).toEqual([400, 'MALFORMED_REQUEST']);
    const badHost = await rawExchange('GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n');
    expect([badHost.status, contractError(badHost)]).toEqual([400, 'MALFORMED_REQUEST']);
    const expect200 = await rawExchange('GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n');
    expect([expect200.status, contractError(expect200)]).toEqual([417, 'EXPECTATION_FAILED']);
    const proxy = await rawExchange('CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n');
    expect([proxy.status, contractError(proxy)]).toEqual([404, 'NOT_FOUND']);
    const longUrl = await rawExchange(`GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect([longUrl.status, contractError(longUrl)]).toEqual([414, 'URI_TOO_LONG']);
    const gzip = await rawExchange(
      `POST /v1/webhooks HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${user.key}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect([gzip.status, contractError(gzip)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // HTTP/1.0 needs no Host, and a plain request still works.
    const old = await rawExchange('GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
    expect((await s.api('/v1/balance', { key: user.key })).status).toBe(200);
  });

  test('issue 41: invalid UTF-8 in a JSON body is INVALID_JSON, not U+FFFD', async () => {
    const body = Buffer.concat([
      Buffer.from('{"url":"http://127.0.0.1:9/'),
      Buffer.from([0xff, 0xfe]),
      Buffer.from('"}'),
    ]);
    const res = await s.api('/v1/webhooks', {
      method: 'POST',
      key: user.key,
      headers: { 'content-type': 'application/json' },
      body,
    });
    expect(res.status).toBe(400);
    const err = await errorOf(res);
    expect(err.code).toBe('INVALID_JSON');
    expect(err.message).toMatch(/UTF-8/);
  });

  test('issue 41: NUL in a sign-in email, an id, a search or an upload key is a 4xx, never a 500', async () => {
    const signIn = await fetch(`${s.base}/dashboard/api/session`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'a\u0000@x.y', password: 'whatever-password' }),
    });
    expect(signIn.status).toBe(400);
    expect((await errorOf(signIn)).code).toBe('VALIDATION_ERROR');
    const admin = (await s.rt.db.selectFrom('accounts').select('id').where('is_admin', '=', 1).executeTakeFirst())!;
    const adminKey = (await import('../src/store/api-keys.ts')).createApiKey(s.rt.db, admin.id);
    const asAdmin = (await adminKey).key;
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

  test('issue 41: bidi, zero-width and control characters are refused in emails, names and notes', async () => {
    const admin = (await s.rt.db.selectFrom('accounts').select('id').where('is_admin', '=', 1).executeTakeFirst())!;
    const { key: adminKey } = await (await import('../src/store/api-keys.ts')).createApiKey(s.rt.db, admin.id);
    for (const email of ['evil\u202e@x.y', 'a\u200b@x.y', 'a\u0007@x.y']) {
      const res = await s.api('/v1/admin/accounts', { method: 'POST', key: adminKey, json: { email } });
      expect(res.status, JSON.stringify(email)).toBe(400);
      expect((await errorOf(res)).message).toMatch(/'email'/);
    }
    const grant = await s.api(`/v1/admin/accounts/${user.id}/credits`, {
      method: 'POST',
      key: adminKey,
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

  test('issue 41: 1e400 is said to be too large, not "expected number, got number"', async () => {
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

  // Last: it spends this address's sign-in budget.
  test('issue 28: rotating X-Forwarded-For does not lift the per-address sign-in limit (TRUST_PROXY unset)', async () => {
    const tries: number[] = [];
    for (let i = 0; i < SIGN_IN_PER_ADDRESS + 5; i++) {
      // A new claimed address and a new email each time: only the real address can be counted.
      const res = await dashboardClient(s, `10.77.${i}.1`).signIn(`guess-${i}-${user.id}@example.com`, 'wrong');
      tries.push(res.status);
    }
    expect(tries.slice(0, SIGN_IN_PER_ADDRESS)).toEqual(Array(SIGN_IN_PER_ADDRESS).fill(401));
    expect(tries.slice(SIGN_IN_PER_ADDRESS)).toEqual(Array(5).fill(429));
  });
});
