import { afterAll, assert, beforeAll, describe, expect, test } from 'vitest';
import { readFile, writeFile } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { makeTone } from './helpers/audio.ts';
import { revokeApiKey, listApiKeys } from '../src/store/api-keys.ts';
import { uploadSignatureFields } from '../src/uploads/grant.ts';
import { findUpload } from '../src/store/uploads.ts';

describe.each(['sqlite', 'postgres'] as const)('platform API on %s', (dialect) => {
  let s: TestServer;
  let user: { id: string; key: string };
  let tone: Buffer;

  beforeAll(async () => {
    s = await startTestServer(dialect, { MAX_FILE_SIZE_MB: '1' });
    user = await s.newAccount();
    tone = await readFile(await makeTone(join(s.dataDir, 'tone.wav'), 2.5, { sampleRate: 22_050, channels: 1 }));
  });
  afterAll(async () => {
    await s?.close();
  });

  const error = async (res: Response) => ((await res.json()) as { error: { code: string; message: string } }).error;

  test('liveness and readiness', async () => {
    expect((await s.api('/healthz')).status).toBe(200);
    const ready = await s.api('/readyz');
    expect(ready.status).toBe(200);
    expect(await ready.json()).toMatchObject({
      status: 'ready',
      checks: { database: { ok: true }, ffmpeg: { ok: true } },
    });
  });

  test('authentication failures answer the contract codes', async () => {
    let res = await s.api('/v1/balance');
    expect(res.status).toBe(401);
    expect((await error(res)).code).toBe('MISSING_API_KEY');
    res = await s.api('/v1/balance', { headers: { authorization: 'Bearer nope' } });
    expect(res.status).toBe(401);
    expect((await error(res)).code).toBe('INVALID_API_KEY');
    res = await s.api('/v1/balance', { headers: { authorization: `Basic ${user.key}` } });
    expect((await error(res)).code).toBe('INVALID_API_KEY');
    res = await s.api('/v1/balance', { key: `sk_live_${'x'.repeat(40)}` });
    expect(res.status).toBe(401);
    expect((await error(res)).code).toBe('INVALID_API_KEY');
    const other = await s.newAccount();
    const [info] = await listApiKeys(s.rt.db, other.id);
    assert(info, 'the new account has no API key');
    await revokeApiKey(s.rt.db, info.id);
    res = await s.api('/v1/balance', { key: other.key });
    expect(res.status).toBe(403);
    expect((await error(res)).code).toBe('API_KEY_REVOKED');
  });

  test('balance: new accounts have 5 free minutes', async () => {
    const res = await s.api('/v1/balance', { key: user.key });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({ balanceSeconds: 300, balanceMinutes: 5, balanceFormatted: '5 minutes' });
    expect(new Date(body.updatedAt).getTime()).toBeGreaterThan(0);
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  test('malformed and invalid requests get specific errors', async () => {
    let res = await s.api('/v1/upload', {
      key: user.key,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"filename":',
    });
    expect(res.status).toBe(400);
    expect((await error(res)).code).toBe('INVALID_JSON');
    res = await s.api('/v1/upload', { key: user.key, method: 'POST', json: {} });
    expect(res.status).toBe(400);
    const e = await error(res);
    expect(e.code).toBe('VALIDATION_ERROR');
    expect(e.message).toContain('filename');
    res = await s.api('/v1/upload', { key: user.key, method: 'POST', json: [1] });
    expect((await error(res)).code).toBe('VALIDATION_ERROR');
    res = await s.api('/v1/upload', {
      key: user.key,
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'filename=a.mp3',
    });
    expect(res.status).toBe(415);
    expect((await error(res)).code).toBe('UNSUPPORTED_MEDIA_TYPE');
    res = await s.api('/v1/nope', { key: user.key });
    expect(res.status).toBe(404);
    expect((await error(res)).code).toBe('NOT_FOUND');
  });

  test('upload grant: signed absolute URL, limits, detected content type', async () => {
    const res = await s.api('/v1/upload', { key: user.key, method: 'POST', json: { filename: 'My Song.mp3' } });
    expect(res.status).toBe(200);
    const g: any = await res.json();
    expect(g.uploadUrl).toMatch(new RegExp(`^${s.base}/v1/uploads/upl_\\w+\\?exp=\\d+&sig=[0-9a-f]{64}$`));
    expect(g.uploadKey).toMatch(/^upl_/);
    expect(g.contentType).toBe('audio/mpeg');
    expect(g.maxFileSizeBytes).toBe(1024 * 1024);
    expect(g.maxFileSizeMb).toBe(1);
    const ttl = new Date(g.expiresAt).getTime() - Date.now();
    expect(ttl).toBeGreaterThan(14 * 60_000);
    expect(ttl).toBeLessThanOrEqual(15 * 60_000);
    expect(Object.keys(g.instructions).sort()).toEqual(['note', 'step1', 'step2']);
    const explicit: any = await (
      await s.api('/v1/upload', {
        key: user.key,
        method: 'POST',
        json: { filename: 'a.bin.wav', contentType: 'audio/x-wav' },
      })
    ).json();
    expect(explicit.contentType).toBe('audio/x-wav');
    const bad = await s.api('/v1/upload', { key: user.key, method: 'POST', json: { filename: 'notes.txt' } });
    expect(bad.status).toBe(400);
    expect((await error(bad)).code).toBe('UNSUPPORTED_FORMAT');
  });

  async function grant(filename = 'tone.wav', key = user.key) {
    return (await (await s.api('/v1/upload', { key, method: 'POST', json: { filename } })).json()) as {
      uploadUrl: string;
      uploadKey: string;
      contentType: string;
    };
  }

  test('signed PUT stores a probed file', async () => {
    const g = await grant();
    const res = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: tone });
    expect(res.status).toBe(200);
    const body: any = await res.json();
    expect(body).toMatchObject({
      uploadKey: g.uploadKey,
      fileName: 'tone.wav',
      fileSizeBytes: tone.length,
      contentType: 'audio/wav',
    });
    expect(body.durationSeconds).toBeCloseTo(2.5, 1);
    const again = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: tone });
    expect(again.status).toBe(409);
  });

  test('signed PUT refuses wrong content type, tampering, expiry, non-audio and oversize', async () => {
    let g = await grant();
    let res = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/mpeg' }, body: tone });
    expect(res.status).toBe(415);
    expect((await error(res)).code).toBe('CONTENT_TYPE_MISMATCH');

    const tampered = g.uploadUrl.replace(/sig=([0-9a-f])/, (_m, c) => `sig=${c === '0' ? '1' : '0'}`);
    res = await fetch(tampered, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: tone });
    expect(res.status).toBe(403);
    expect((await error(res)).code).toBe('INVALID_SIGNATURE');

    // Another account's upload id with this URL's signature does not verify.
    const other = await s.newAccount();
    const foreign = await grant('x.wav', other.key);
    res = await fetch(g.uploadUrl.replace(g.uploadKey, foreign.uploadKey), {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: tone,
    });
    expect(res.status).toBe(403);
    expect((await error(res)).code).toBe('INVALID_SIGNATURE');

    const past = String(Math.floor(Date.now() / 1000) - 5);
    const sig = s.rt.signer.sign(uploadSignatureFields(g.uploadKey, past, 'audio/wav'));
    res = await fetch(`${s.base}/v1/uploads/${g.uploadKey}?exp=${past}&sig=${sig}`, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: tone,
    });
    expect(res.status).toBe(403);
    expect((await error(res)).code).toBe('UPLOAD_URL_EXPIRED');

    res = await fetch(g.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: Buffer.from('this is not audio at all, just text named .wav'),
    });
    expect(res.status).toBe(400);
    expect((await error(res)).code).toBe('UNSUPPORTED_FORMAT');

    g = await grant();
    const big = Buffer.alloc(1024 * 1024 + 10, 7);
    res = await fetch(g.uploadUrl, { method: 'PUT', headers: { 'content-type': 'audio/wav' }, body: big });
    expect(res.status).toBe(400);
    expect((await error(res)).code).toBe('FILE_TOO_LARGE');

    // Streamed without a Content-Length: stopped at the limit while reading.
    g = await grant();
    const chunks = Array.from({ length: 40 }, () => Buffer.alloc(64 * 1024, 1));
    res = await fetch(g.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': 'audio/wav' },
      body: Readable.toWeb(Readable.from(chunks)) as ReadableStream,
      duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(400);
    expect((await error(res)).code).toBe('FILE_TOO_LARGE');
    // Nothing of the refused PUT was stored: no object under the upload's folder, the grant still pending.
    expect((await findUpload(s.rt.db, g.uploadKey))?.status).toBe('pending');
    expect(existsSync(join(s.dataDir, 'blobs', 'objects', 'uploads', user.id, g.uploadKey))).toBe(false);
  });

  test('signed downloads support Range', async () => {
    const path = join(s.dataDir, 'blob.bin');
    await writeFile(path, Buffer.from('0123456789abcdef'));
    await s.rt.blobs.putFile('jobs/test/out.bin', path, { contentType: 'application/octet-stream' });
    const { url } = await s.rt.blobs.signedDownloadUrl('jobs/test/out.bin', {
      fileName: 'song-vocals.bin',
      contentType: 'application/octet-stream',
      expiresInSeconds: 3600,
    });
    const res = await fetch(url, { headers: { range: 'bytes=2-5' } });
    expect(res.status).toBe(206);
    expect(await res.text()).toBe('2345');
    expect(res.headers.get('content-range')).toBe('bytes 2-5/16');
    const whole = await fetch(url);
    expect(whole.headers.get('content-length')).toBe('16');
    expect(whole.headers.get('content-disposition')).toContain('song-vocals.bin');
  });

  test('rate limit: headers on every response, 429 with Retry-After past the budget', async () => {
    const limited = await startTestServer(dialect, { RATE_LIMIT_PER_MINUTE: '3' });
    try {
      const a = await limited.newAccount();
      const b = await limited.newAccount();
      const remaining: string[] = [];
      for (let i = 0; i < 3; i++) {
        const res = await limited.api('/v1/balance', { key: a.key });
        expect(res.status).toBe(200);
        expect(res.headers.get('x-ratelimit-limit')).toBe('3');
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000);
        remaining.push(res.headers.get('x-ratelimit-remaining')!);
      }
      expect(remaining).toEqual(['2', '1', '0']);
      const res = await limited.api('/v1/balance', { key: a.key });
      expect(res.status).toBe(429);
      expect((await error(res)).code).toBe('RATE_LIMIT_EXCEEDED');
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(res.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await limited.api('/v1/balance', { key: b.key })).status).toBe(200);
    } finally {
      await limited.close();
    }
  });

  test('OpenAPI 3.1 document and browsable docs', async () => {
    const doc: any = await (await s.api('/v1/openapi.json')).json();
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/v1/balance'].get.responses['200']).toBeTruthy();
    expect(doc.paths['/v1/upload'].post.requestBody.content['application/json'].schema.required).toContain('filename');
    const page = await s.api('/docs');
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('/docs/assets/swagger-ui-bundle.js');
    expect(html).not.toMatch(/<script>(?!<)/);
    const bundle = await s.api('/docs/assets/swagger-ui-bundle.js');
    expect(bundle.headers.get('content-type')).toContain('javascript');
    expect((await bundle.arrayBuffer()).byteLength).toBeGreaterThan(100_000);
    const outside = await s.api('/docs/assets/..%2Fpackage.json');
    expect(outside.status).toBe(404);
    expect((await error(outside)).code).toBe('NOT_FOUND');
  });
});
