import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dashboardClient } from './helpers/dashboard.ts';
import { SIGN_IN_PER_ADDRESS } from '../src/dashboard/throttle.ts';
import { dialects } from './helpers/db.ts';
import { errorOf } from './helpers/errors.ts';
import { rawHttp } from './helpers/raw-http.ts';

/**
 * Issue 14, findings 4, 5, 7, 9, 10 and 11, over real HTTP: every hostile input answers the
 * contract's `{error:{code,message}}` with a 4xx, slow bodies are cut, credentials stay out of the
 * log, and client-sent names are sanitised. Issue 41: on both databases, since PostgreSQL refuses
 * text (NUL) that SQLite stores (its own cases: `hostile-text.test.ts`, `http-framework-answers.test.ts`).
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

  const rawExchange = (bytes: string) => rawHttp(s.base, bytes);

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
