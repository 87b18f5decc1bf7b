import { afterAll, assert, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHmac } from 'node:crypto';
import { signBody, verifySignature } from '../../src/webhooks/sign.ts';
import { generateWebhookSecret } from '../../src/domain/ids.ts';
import { sendWebhook, type WebhookDelivery } from '../../src/webhooks/send.ts';

interface Received {
  method: string;
  headers: IncomingHttpHeaders;
  raw: Buffer;
}

const received: Received[] = [];
let behaviour: 'ok' | '204' | '500' | 'hang' | 'redirect' = 'ok';
let server: Server;
let url: string;

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ method: req.method!, headers: req.headers, raw: Buffer.concat(chunks) });
      if (behaviour === 'hang') return;
      if (behaviour === 'redirect') res.writeHead(302, { Location: '/elsewhere' }).end();
      else if (behaviour === '500') res.writeHead(500).end('nope');
      else if (behaviour === '204') res.writeHead(204).end();
      else res.writeHead(200, { 'Content-Type': 'text/plain' }).end('thanks');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});
beforeEach(() => {
  received.length = 0;
  behaviour = 'ok';
});

const secret = 'whsec_test_secret_0123456789abcdef0123456789';
// Non-ASCII and characters JSON may escape differently, so a signature over a re-serialisation would differ.
const body = {
  event: 'job.completed',
  timestamp: '2024-01-01T00:00:00.000Z',
  data: { jobId: 'job_1', status: 'COMPLETED', input: { fileName: 'Café – “Ünïcode” </script>.mp3' }, outputs: null },
};
const delivery = (over: Partial<WebhookDelivery> = {}): WebhookDelivery => ({
  url,
  secret,
  webhookId: 'wh_123',
  event: 'job.completed',
  body,
  timeoutMs: 2_000,
  allowPrivate: true,
  ...over,
});

describe('signBody / verifySignature', () => {
  it('is HMAC-SHA256 hex over the exact bytes', () => {
    const raw = '{"a":1}';
    const expected = createHmac('sha256', 'k').update(raw).digest('hex');
    expect(signBody(raw, 'k')).toBe(`sha256=${expected}`);
    expect(signBody(Buffer.from(raw), 'k')).toBe(`sha256=${expected}`);
  });

  it('accepts the right signature and refuses everything else', () => {
    const raw = Buffer.from('{"event":"job.failed"}');
    const sig = signBody(raw, secret);
    expect(verifySignature(raw, secret, sig)).toBe(true);
    expect(verifySignature(raw, secret, sig.toUpperCase().replace('SHA256=', 'sha256='))).toBe(true);
    expect(verifySignature(raw, secret, [sig])).toBe(true);
    expect(verifySignature(Buffer.from('{"event":"job.failed" }'), secret, sig)).toBe(false);
    expect(verifySignature(raw, `${secret}x`, sig)).toBe(false);
    expect(verifySignature(raw, secret, sig.slice(0, -1))).toBe(false); // wrong length must not throw
    expect(verifySignature(raw, secret, `${sig}00`)).toBe(false);
    expect(verifySignature(raw, secret, sig.replace('sha256=', 'sha1='))).toBe(false);
    expect(verifySignature(raw, secret, undefined)).toBe(false);
    expect(verifySignature(raw, secret, '')).toBe(false);
  });

  it('generates distinct secrets of at least 32 random bytes', () => {
    const a = generateWebhookSecret();
    const b = generateWebhookSecret();
    expect(a).not.toBe(b);
    expect(a).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    expect(Buffer.from(a.slice(6), 'base64url')).toHaveLength(32);
  });
});

describe('sendWebhook', () => {
  it('posts the signed body with the contract headers', async () => {
    const result = await sendWebhook(delivery());
    expect(result).toMatchObject({ ok: true, status: 200, error: null });
    expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(received).toHaveLength(1);
    const [r] = received;
    assert(r, 'no request received');
    expect(r.method).toBe('POST');
    expect(r.headers['content-type']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('Stemforge-Webhooks/1.0');
    expect(r.headers['x-webhook-event']).toBe('job.completed');
    expect(r.headers['x-webhook-id']).toBe('wh_123');
    expect(Number(r.headers['content-length'])).toBe(r.raw.length);
    // A receiver verifies over the raw bytes it got, before parsing.
    expect(verifySignature(r.raw, secret, r.headers['x-webhook-signature'])).toBe(true);
    expect(JSON.parse(r.raw.toString('utf8'))).toEqual(body);
  });

  it('sends a pre-serialised string body unchanged', async () => {
    const raw = '{"event":"job.failed",  "data":{}}';
    await sendWebhook(delivery({ body: raw, event: 'job.failed' }));
    expect(received[0]!.raw.toString()).toBe(raw);
    expect(received[0]!.headers['x-webhook-signature']).toBe(signBody(raw, secret));
    expect(received[0]!.headers['x-webhook-event']).toBe('job.failed');
  });

  it('counts any 2xx as success', async () => {
    behaviour = '204';
    expect(await sendWebhook(delivery())).toMatchObject({ ok: true, status: 204, error: null });
  });

  it('reports a non-2xx status', async () => {
    behaviour = '500';
    expect(await sendWebhook(delivery())).toMatchObject({ ok: false, status: 500, error: 'HTTP 500' });
  });

  it('does not follow redirects', async () => {
    behaviour = 'redirect';
    const result = await sendWebhook(delivery());
    expect(result).toMatchObject({ ok: false, status: 302 });
    expect(result.error).toMatch(/HTTP 302/);
    expect(received).toHaveLength(1);
  });

  it('fails a slow receiver after the timeout', async () => {
    behaviour = 'hang';
    const result = await sendWebhook(delivery({ timeoutMs: 300 }));
    expect(result).toMatchObject({ ok: false, status: null, error: 'timeout after 300 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(290);
    expect(result.durationMs).toBeLessThan(2_000);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const result = await sendWebhook(delivery({ url: `http://127.0.0.1:${port}/hook` }));
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/ECONNREFUSED/);
  });

  it('refuses private targets unless allowPrivate, without connecting', async () => {
    const literal = await sendWebhook(delivery({ allowPrivate: false }));
    expect(literal).toMatchObject({ ok: false, status: null });
    expect(literal.error).toMatch(/address not allowed: 127\.0\.0\.1 is a loopback address/);
    const named = await sendWebhook(delivery({ allowPrivate: false, url: url.replace('127.0.0.1', 'localhost') }));
    expect(named.error).toMatch(/address not allowed: localhost \(127\.0\.0\.1\)/);
    expect(received).toHaveLength(0);
  });

  it('reports a malformed URL instead of throwing', async () => {
    const result = await sendWebhook(delivery({ url: 'ftp://example.com/x' }));
    expect(result).toMatchObject({ ok: false, status: null });
    expect(result.error).toMatch(/http and https/);
  });
});
