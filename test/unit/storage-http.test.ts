import { randomBytes } from 'node:crypto';
import { request } from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../src/domain/errors.ts';
import { blobRoutes } from '../../src/http/routes/blobs.ts';
import { registerRoutes } from '../../src/routing/register-routes.ts';
import { DiskBlobStore } from '../../src/storage/disk-store.ts';
import { UrlSigner } from '../../src/storage/url-signer.ts';

/**
 * The signed download route of the disk adapter, over real HTTP on 127.0.0.1: headers, single byte
 * ranges (RFC 9110 section 14), tampering and expiry. The error handler below stands in for the
 * service's: it formats ApiError as the catalog body.
 */
let app: FastifyInstance;
let root: string;
let base: string;
let store: DiskBlobStore;
let pastStore: DiskBlobStore;
const data = randomBytes(1000);
const KEY = 'jobs/job_1/vocals.mp3';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'stemforge-http-'));
  const signer = new UrlSigner(randomBytes(32));
  app = Fastify();
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).headers(err.headers).send(err.toBody());
    return reply.code(500).send({ error: { code: 'INTERNAL_ERROR', message: String(err) } });
  });
  const storeRef: { s?: DiskBlobStore } = {};
  registerRoutes(
    app,
    blobRoutes({
      blobs: new Proxy({} as DiskBlobStore, { get: (_t, p) => (storeRef.s as any)[p].bind(storeRef.s) }),
      signer,
    }),
  );
  base = await app.listen({ host: '127.0.0.1', port: 0 });
  store = storeRef.s = new DiskBlobStore({ root, publicUrl: base, signer });
  pastStore = new DiskBlobStore({ root, publicUrl: base, signer, now: () => Date.now() - 2 * 3600_000 });
  await store.put(KEY, Readable.from([data]), { contentType: 'application/octet-stream' });
  await store.put('jobs/job_1/empty.wav', Readable.from([]), { contentType: 'audio/wav' });
});

afterAll(async () => {
  await app?.close();
  await rm(root, { recursive: true, force: true });
});

async function signed(key = KEY, fileName = 'song (vocals).mp3'): Promise<string> {
  return (await store.signedDownloadUrl(key, { fileName, contentType: 'audio/mpeg', expiresInSeconds: 3600 })).url;
}

async function get(url: string | URL, headers: Record<string, string> = {}, method = 'GET') {
  const res = await fetch(url, { headers, method });
  return { res, body: Buffer.from(await res.arrayBuffer()) };
}

describe('GET /v1/blobs/* (signed downloads, disk adapter)', () => {
  it('serves the whole file with download headers', async () => {
    const url = await signed();
    expect(url.startsWith(`${base}/v1/blobs/${KEY}?exp=`)).toBe(true);
    const { res, body } = await get(url);
    expect(res.status).toBe(200);
    expect(body.equals(data)).toBe(true);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.headers.get('accept-ranges')).toBe('bytes');
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="song (vocals).mp3"; filename*=UTF-8''song%20%28vocals%29.mp3`,
    );
  });

  it('quotes hostile and non-ASCII file names safely', async () => {
    const name = 'Beyoncé "Halo"; x=\\.mp3';
    const { res } = await get(await signed(KEY, name));
    const cd = res.headers.get('content-disposition')!;
    const fallback = /filename="([^"]*)"/.exec(cd)![1];
    expect(fallback).toBe('Beyonce _Halo_; x=_.mp3');
    // Path separators never reach the saved name, in either form.
    expect(decodeURIComponent(/filename\*=UTF-8''(\S+)$/.exec(cd)![1]!)).toBe('Beyoncé "Halo"; x=_.mp3');
  });

  it('answers HEAD with the headers and no body', async () => {
    const { res, body } = await get(await signed(), {}, 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-length')).toBe('1000');
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(body.length).toBe(0);
  });

  it.each([
    ['bytes=0-99', 0, 99],
    ['bytes=100-', 100, 999],
    ['bytes=-50', 950, 999],
    ['bytes=-5000', 0, 999],
    ['bytes=990-5000', 990, 999],
    ['bytes=999-999', 999, 999],
  ])('serves %s as 206', async (range, start, end) => {
    const { res, body } = await get(await signed(), { Range: range });
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/1000`);
    expect(res.headers.get('content-length')).toBe(String(end - start + 1));
    expect(body.equals(data.subarray(start, end + 1))).toBe(true);
  });

  it('answers HEAD with a range as 206 without a body', async () => {
    const { res, body } = await get(await signed(), { Range: 'bytes=10-19' }, 'HEAD');
    expect(res.status).toBe(206);
    expect(res.headers.get('content-length')).toBe('10');
    expect(res.headers.get('content-range')).toBe('bytes 10-19/1000');
    expect(body.length).toBe(0);
  });

  it.each(['bytes=1000-', 'bytes=5000-6000', 'bytes=-0'])('answers unsatisfiable %s with 416', async (range) => {
    const { res, body } = await get(await signed(), { Range: range });
    expect(res.status).toBe(416);
    expect(res.headers.get('content-range')).toBe('bytes */1000');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(JSON.parse(body.toString()).error.code).toBe('RANGE_NOT_SATISFIABLE');
  });

  it.each(['bytes=5-2', 'bytes=0-1,4-5', 'items=0-1', 'bytes=abc'])(
    'ignores unusable Range %s and sends 200',
    async (range) => {
      const { res, body } = await get(await signed(), { Range: range });
      expect(res.status).toBe(200);
      expect(body.equals(data)).toBe(true);
    },
  );

  it('serves an empty file, and refuses any range of it', async () => {
    const url = (
      await store.signedDownloadUrl('jobs/job_1/empty.wav', {
        fileName: 'e.wav',
        contentType: 'audio/wav',
        expiresInSeconds: 60,
      })
    ).url;
    const full = await get(url);
    expect(full.res.status).toBe(200);
    expect(full.res.headers.get('content-length')).toBe('0');
    expect((await get(url, { Range: 'bytes=0-' })).res.status).toBe(416);
  });

  it('refuses a tampered URL with 403 INVALID_SIGNATURE', async () => {
    const url = new URL(await signed());
    const mutate: ((u: URL) => void)[] = [
      (u) => u.searchParams.set('sig', '0'.repeat(64)),
      (u) => u.searchParams.delete('sig'),
      (u) => u.searchParams.set('sig', 'zz'),
      (u) => u.searchParams.set('name', 'evil.html'),
      (u) => u.searchParams.set('ct', 'text/html'),
      (u) => u.searchParams.set('exp', String(Number(u.searchParams.get('exp')) + 3600)),
      (u) => (u.pathname = '/v1/blobs/jobs/job_1/empty.wav'),
    ];
    for (const m of mutate) {
      const u = new URL(url);
      m(u);
      const { res, body } = await get(u);
      expect(res.status, u.toString()).toBe(403);
      expect(JSON.parse(body.toString())).toEqual({
        error: { code: 'INVALID_SIGNATURE', message: expect.any(String) },
      });
    }
  });

  it('refuses an expired URL with 403 DOWNLOAD_URL_EXPIRED, and a tampered expired one as tampered', async () => {
    const { url } = await pastStore.signedDownloadUrl(KEY, {
      fileName: 'a.mp3',
      contentType: 'audio/mpeg',
      expiresInSeconds: 3600,
    });
    const { res, body } = await get(url);
    expect(res.status).toBe(403);
    expect(JSON.parse(body.toString()).error.code).toBe('DOWNLOAD_URL_EXPIRED');
    const u = new URL(url);
    u.searchParams.set('name', 'b.mp3');
    const tampered = await get(u);
    expect(JSON.parse(tampered.body.toString()).error.code).toBe('INVALID_SIGNATURE');
  });

  it('answers 404 FILE_NOT_FOUND for a valid URL to a deleted blob', async () => {
    const key = 'jobs/job_2/bass.mp3';
    await store.put(key, Readable.from([Buffer.from('bass')]), { contentType: 'audio/mpeg' });
    const url = await signed(key);
    expect((await get(url)).res.status).toBe(200);
    await store.delete(key);
    const { res, body } = await get(url);
    expect(res.status).toBe(404);
    expect(JSON.parse(body.toString()).error.code).toBe('FILE_NOT_FOUND');
  });

  it('refuses traversal paths sent raw, without touching the file system', async () => {
    const url = new URL(await signed());
    for (const path of [
      '/v1/blobs/%2e%2e/%2e%2e/etc/passwd',
      '/v1/blobs/jobs/..%2f..%2f..%2fetc%2fpasswd',
      '/v1/blobs/%2fetc%2fpasswd',
      '/v1/blobs/',
    ]) {
      const status = await new Promise<number>((resolve, reject) => {
        const req = request(
          { host: '127.0.0.1', port: Number(url.port), path: `${path}${url.search}`, method: 'GET' },
          (res) => {
            res.resume();
            resolve(res.statusCode!);
          },
        );
        req.on('error', reject);
        req.end();
      });
      expect(status, path).toBe(403);
    }
  });
});
