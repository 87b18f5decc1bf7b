import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { connect } from 'node:net';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { dialects } from './helpers/db.ts';
import { errorOf } from './helpers/errors.ts';
import { contractCode, rawHttp } from './helpers/raw-http.ts';

/**
 * Issue 41 (docs/http.md): the answers Node's HTTP server and Fastify make on their own (no or two
 * Host headers, an unknown Expect, CONNECT, a URL over the header limit, a Content-Encoding, a
 * request while the server closes) and invalid UTF-8 in a JSON body get the contract's body
 * `{"error":{"code","message"}}` with their status, over raw sockets, on both databases.
 */
describe.each(dialects)('framework answers in the contract body on %s', (dialect) => {
  let s: TestServer;
  let user: { id: string; key: string };
  beforeAll(async () => {
    s = await startTestServer(dialect);
    user = await s.newAccount();
  });
  afterAll(async () => {
    await s?.close();
  });

  test('Host, Expect, CONNECT, a long URL and Content-Encoding get the contract body', async () => {
    const noHost = await rawHttp(s.base, 'GET /v1/balance HTTP/1.1\r\nConnection: close\r\n\r\n');
    expect([noHost.status, contractCode(noHost)]).toEqual([400, 'MALFORMED_REQUEST']);
    const twoHosts = await rawHttp(s.base, 'GET /healthz HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n');
    expect([twoHosts.status, contractCode(twoHosts)]).toEqual([400, 'MALFORMED_REQUEST']);
    const badHost = await rawHttp(s.base, 'GET /healthz HTTP/1.1\r\nHost: a b\r\n\r\n');
    expect([badHost.status, contractCode(badHost)]).toEqual([400, 'MALFORMED_REQUEST']);
    const expect200 = await rawHttp(s.base, 'GET /healthz HTTP/1.1\r\nHost: a\r\nExpect: 200-ok\r\n\r\n');
    expect([expect200.status, contractCode(expect200)]).toEqual([417, 'EXPECTATION_FAILED']);
    const proxy = await rawHttp(s.base, 'CONNECT a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n');
    expect([proxy.status, contractCode(proxy)]).toEqual([404, 'NOT_FOUND']);
    const longUrl = await rawHttp(s.base, `GET /${'a'.repeat(70_000)} HTTP/1.1\r\nHost: a\r\n\r\n`);
    expect([longUrl.status, contractCode(longUrl)]).toEqual([414, 'URI_TOO_LONG']);
    const gzip = await rawHttp(
      s.base,
      `POST /v1/webhooks HTTP/1.1\r\nHost: a\r\nAuthorization: Bearer ${user.key}\r\nContent-Type: application/json\r\nContent-Encoding: gzip\r\nContent-Length: 2\r\n\r\n{}`,
    );
    expect([gzip.status, contractCode(gzip)]).toEqual([415, 'UNSUPPORTED_MEDIA_TYPE']);
    // HTTP/1.0 needs no Host, and a plain request still works.
    const old = await rawHttp(s.base, 'GET /healthz HTTP/1.0\r\n\r\n');
    expect(old.status).toBe(200);
    expect((await s.api('/v1/balance', { key: user.key })).status).toBe(200);
  });

  test('invalid UTF-8 in a JSON body is INVALID_JSON, not U+FFFD', async () => {
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

  // Last: it closes the server.
  test('a request arriving on a busy connection while the server closes: 503 in the contract body', async () => {
    const u = new URL(s.base);
    const sock = connect(Number(u.port), u.hostname);
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    const closed = new Promise<void>((r) => sock.on('close', () => r()));
    // A PUT whose body has not arrived keeps the connection busy, so the close waits for it.
    sock.write(
      'PUT /v1/uploads/upl_x?exp=1&sig=00 HTTP/1.1\r\nHost: a\r\nContent-Type: audio/wav\r\nContent-Length: 5\r\n\r\n',
    );
    const answered = () => Buffer.concat(chunks).toString('latin1').includes('INVALID_SIGNATURE');
    for (let i = 0; i < 100 && !answered(); i++) await new Promise((r) => setTimeout(r, 50));
    const closing = s.app.close();
    // The rest of the body, then a second request on the same connection.
    await new Promise((r) => setTimeout(r, 100));
    sock.write('xxxxxGET /healthz HTTP/1.1\r\nHost: a\r\n\r\n');
    await closed;
    await closing;
    const second = Buffer.concat(chunks).toString('latin1').split('}HTTP/1.1 ')[1] ?? '';
    expect(second).toMatch(/^503 /);
    expect(second).toMatch(/retry-after: 1/i);
    expect(second).toContain('"code":"SERVICE_UNAVAILABLE"');
  });
});
