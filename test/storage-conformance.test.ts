import { createHash, randomBytes } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../src/domain/errors.ts';
import { blobRoutes } from '../src/http/routes/blobs.ts';
import { registerRoutes } from '../src/routing/register-routes.ts';
import type { BlobStore } from '../src/storage/blob-store.ts';
import { DiskBlobStore } from '../src/storage/disk-store.ts';
import { BlobNotFoundError, BlobTooLargeError, InvalidBlobKeyError } from '../src/storage/errors.ts';
import { createS3Client, S3BlobStore } from '../src/storage/s3-store.ts';
import { UrlSigner } from '../src/storage/url-signer.ts';
import { loadConfig } from '../src/config.ts';
import { createBlobStore } from '../src/storage/create-blob-store.ts';
import { STORAGE_BACKENDS, type StorageBackendName } from '../src/storage/backends.ts';
import { s3Settings, startS3Server } from './helpers/s3-server.ts';

/**
 * The blob-store port's contract, run against every adapter: disk (served by the API's own blob
 * route on 127.0.0.1) and S3 (a real S3-compatible server, s3rver, on 127.0.0.1).
 */
interface Harness {
  backend: StorageBackendName;
  /** The API's own site, which the disk adapter's URLs point at. */
  site: string;
  blobs: BlobStore;
  /** The same storage with a clock two hours behind, to mint already-expired URLs. */
  pastStore: BlobStore;
  /** Temp files or open multipart uploads left behind; must be empty after any put. */
  leftovers(): Promise<string[]>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
const TWO_HOURS = 2 * 3600 * 1000;

async function diskHarness(): Promise<Harness> {
  const root = await mkdtemp(join(tmpdir(), 'stemforge-disk-'));
  const signer = new UrlSigner(randomBytes(32));
  let store: BlobStore | undefined;
  const app = Fastify();
  app.setErrorHandler((err, _req, reply) => {
    if (err instanceof ApiError) return reply.code(err.status).headers(err.headers).send(err.toBody());
    return reply.code(500).send({ error: { code: 'INTERNAL_ERROR', message: String(err) } });
  });
  // The route needs the store and the store needs the server's URL: resolve lazily.
  registerRoutes(
    app,
    blobRoutes({
      blobs: new Proxy({} as BlobStore, { get: (_t, p) => (store as any)[p].bind(store) }),
      signer,
    }),
  );
  const address = await app.listen({ host: '127.0.0.1', port: 0 });
  store = new DiskBlobStore({ root, publicUrl: address, signer });
  const pastStore = new DiskBlobStore({ root, publicUrl: address, signer, now: () => Date.now() - TWO_HOURS });
  return {
    backend: 'disk',
    site: address,
    blobs: store,
    pastStore,
    leftovers: async () => readdir(join(root, 'tmp')).catch(() => []),
    close: async () => {
      await app.close();
      await rm(root, { recursive: true, force: true });
    },
  };
}

async function s3Harness(): Promise<Harness> {
  const s3 = await startS3Server();
  const settings = { ...s3, forcePathStyle: true };
  // The smallest part size S3 allows, so a few MiB exercise multipart uploads.
  const store = new S3BlobStore({
    client: createS3Client(settings),
    bucket: s3.bucket,
    endpoint: settings.endpoint,
    partSize: 5 * MiB,
  });
  const pastStore = new S3BlobStore({
    client: createS3Client(settings),
    bucket: s3.bucket,
    now: () => Date.now() - TWO_HOURS,
  });
  return {
    backend: 's3',
    site: 'http://site.invalid',
    blobs: store,
    pastStore,
    leftovers: () => s3.openMultipartUploads(),
    close: async () => {
      await store.close();
      await pastStore.close();
      await s3.close();
    },
  };
}

const adapters = [
  { name: 'disk', setup: diskHarness },
  { name: 's3 (s3rver on 127.0.0.1)', setup: s3Harness },
];

function body(...parts: (string | Buffer)[]): Readable {
  return Readable.from(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p)));
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const c of stream) chunks.push(Buffer.from(c));
  return Buffer.concat(chunks);
}

/** A source that never ends unless the consumer stops, counting what it produced. */
function endless(chunkSize = 64 * 1024) {
  const state = { produced: 0 };
  const stream = new Readable({
    read() {
      state.produced += chunkSize;
      this.push(Buffer.alloc(chunkSize, 1));
    },
  });
  return { stream, state };
}

const BAD_KEYS = [
  '',
  '/abs',
  'a//b',
  'a/',
  '../etc/passwd',
  'a/../../b',
  '..',
  '.',
  'a/./b',
  'a/.../b',
  'a\\b',
  'a b',
  'ü',
  'a%2f..',
  'a\0b',
  'a/b?c',
  'x'.repeat(1025),
];

describe.each(adapters)('blob store conformance: $name', ({ setup }) => {
  let h: Harness;
  let n = 0;
  const k = (name: string) => `t/${process.pid}-${++n}/${name}`;

  beforeAll(async () => {
    h = await setup();
  });
  afterAll(async () => {
    await h?.close();
  });

  it('puts a stream and reads back bytes, size and content type', async () => {
    const key = k('source');
    expect(await h.blobs.put(key, body('hello ', 'world'), { contentType: 'audio/mpeg' })).toEqual({ size: 11 });
    expect(await h.blobs.stat(key)).toEqual({ size: 11, contentType: 'audio/mpeg' });
    expect((await readAll(await h.blobs.createReadStream(key))).toString()).toBe('hello world');
  });

  it('stores an empty blob', async () => {
    const key = k('empty');
    expect(await h.blobs.put(key, body(), { contentType: 'text/plain' })).toEqual({ size: 0 });
    expect(await h.blobs.stat(key)).toEqual({ size: 0, contentType: 'text/plain' });
    expect((await readAll(await h.blobs.createReadStream(key))).length).toBe(0);
  });

  it('overwrites a blob with its new bytes and content type', async () => {
    const key = k('over');
    await h.blobs.put(key, body('first version'), { contentType: 'audio/wav' });
    await h.blobs.put(key, body('second'), { contentType: 'audio/flac' });
    expect(await h.blobs.stat(key)).toEqual({ size: 6, contentType: 'audio/flac' });
    expect((await readAll(await h.blobs.createReadStream(key))).toString()).toBe('second');
  });

  it('answers a missing key with null, BlobNotFoundError, or a no-op delete', async () => {
    const key = k('missing');
    expect(await h.blobs.stat(key)).toBeNull();
    await expect(h.blobs.createReadStream(key)).rejects.toBeInstanceOf(BlobNotFoundError);
    const dir = await mkdtemp(join(tmpdir(), 'stemforge-dl-'));
    await expect(h.blobs.downloadToFile(key, join(dir, 'x'))).rejects.toBeInstanceOf(BlobNotFoundError);
    await rm(dir, { recursive: true, force: true });
    await expect(h.blobs.delete(key)).resolves.toBeUndefined();
  });

  it('reads inclusive byte ranges and rejects impossible ones', async () => {
    const key = k('range');
    await h.blobs.put(key, body('0123456789'), { contentType: 'text/plain' });
    const read = async (r: { start?: number; end?: number }) =>
      (await readAll(await h.blobs.createReadStream(key, r))).toString();
    expect(await read({ start: 2, end: 4 })).toBe('234');
    expect(await read({ start: 7 })).toBe('789');
    expect(await read({ end: 2 })).toBe('012');
    expect(await read({ start: 9, end: 9 })).toBe('9');
    expect(await read({ start: 8, end: 500 })).toBe('89');
    await expect(h.blobs.createReadStream(key, { start: 10 })).rejects.toBeInstanceOf(RangeError);
    await expect(h.blobs.createReadStream(key, { start: 5, end: 4 })).rejects.toBeInstanceOf(RangeError);
    await expect(h.blobs.createReadStream(key, { start: -1 })).rejects.toBeInstanceOf(RangeError);
  });

  it('streams a 12 MiB body in and out intact (multipart on S3)', async () => {
    const key = k('big');
    const hash = createHash('sha256');
    let i = 0;
    const src = new Readable({
      read() {
        if (i === 12) return void this.push(null);
        const chunk = Buffer.alloc(MiB, i++);
        hash.update(chunk);
        this.push(chunk);
      },
    });
    expect(await h.blobs.put(key, src, { contentType: 'audio/wav', maxBytes: 50 * MiB })).toEqual({ size: 12 * MiB });
    const back = createHash('sha256');
    for await (const c of await h.blobs.createReadStream(key)) back.update(c);
    expect(back.digest('hex')).toBe(hash.digest('hex'));
    expect(await h.leftovers()).toEqual([]);
  });

  it('accepts a body of exactly maxBytes', async () => {
    const key = k('exact');
    expect(await h.blobs.put(key, body(Buffer.alloc(1000, 3)), { contentType: 'audio/mpeg', maxBytes: 1000 })).toEqual({
      size: 1000,
    });
  });

  it('rejects one byte over maxBytes, keeps the previous blob and leaves nothing behind', async () => {
    const key = k('over-limit');
    await h.blobs.put(key, body('previous'), { contentType: 'text/plain' });
    await expect(
      h.blobs.put(key, body(Buffer.alloc(600), Buffer.alloc(401)), { contentType: 'audio/mpeg', maxBytes: 1000 }),
    ).rejects.toBeInstanceOf(BlobTooLargeError);
    expect(await h.blobs.stat(key)).toEqual({ size: 8, contentType: 'text/plain' });
    expect((await readAll(await h.blobs.createReadStream(key))).toString()).toBe('previous');
    expect(await h.leftovers()).toEqual([]);
  });

  it('stops reading an endless body soon after maxBytes and leaves the source to the caller', async () => {
    const key = k('endless');
    const { stream, state } = endless();
    const err = await h.blobs.put(key, stream, { contentType: 'audio/mpeg', maxBytes: MiB }).catch((e) => e);
    expect(err).toBeInstanceOf(BlobTooLargeError);
    expect((err as BlobTooLargeError).maxBytes).toBe(MiB);
    // Whatever the source had buffered ahead (16 chunks by default), not a byte more is pulled.
    const producedAtReject = state.produced;
    expect(producedAtReject).toBeLessThanOrEqual(MiB + 17 * 64 * 1024);
    await new Promise((r) => setTimeout(r, 50));
    expect(state.produced).toBe(producedAtReject);
    expect(stream.destroyed).toBe(false);
    stream.destroy();
    expect(await h.blobs.stat(key)).toBeNull();
    expect(await h.leftovers()).toEqual([]);
  }, 20_000);

  it('aborts a multipart-sized upload past maxBytes without leaving parts', async () => {
    const key = k('endless-big');
    const { stream } = endless(MiB);
    await expect(h.blobs.put(key, stream, { contentType: 'audio/wav', maxBytes: 7 * MiB })).rejects.toBeInstanceOf(
      BlobTooLargeError,
    );
    stream.destroy();
    expect(await h.blobs.stat(key)).toBeNull();
    expect(await h.leftovers()).toEqual([]);
  }, 20_000);

  it('rejects with the source error when the body fails midway, storing nothing', async () => {
    const key = k('broken');
    let sent = 0;
    const src = new Readable({
      read() {
        if (sent++ < 3) this.push(Buffer.alloc(1024, 5));
        else this.destroy(new Error('client went away'));
      },
    });
    await expect(h.blobs.put(key, src, { contentType: 'audio/mpeg' })).rejects.toThrow('client went away');
    expect(await h.blobs.stat(key)).toBeNull();
    expect(await h.leftovers()).toEqual([]);
  });

  it('keeps concurrent writes to one key whole: the survivor is one complete body', async () => {
    const key = k('race');
    await Promise.all(
      [1, 2, 3, 4].map((v) => h.blobs.put(key, body(Buffer.alloc(256 * 1024, v)), { contentType: 'audio/mpeg' })),
    );
    const bytes = await readAll(await h.blobs.createReadStream(key));
    expect(bytes.length).toBe(256 * 1024);
    expect(new Set(bytes).size).toBe(1);
  });

  it('round-trips local files with putFile and downloadToFile', async () => {
    const key = k('file.wav');
    const dir = await mkdtemp(join(tmpdir(), 'stemforge-files-'));
    const data = randomBytes(300_000);
    await writeFile(join(dir, 'in'), data);
    expect(await h.blobs.putFile(key, join(dir, 'in'), { contentType: 'audio/wav' })).toEqual({ size: data.length });
    expect(await h.blobs.stat(key)).toEqual({ size: data.length, contentType: 'audio/wav' });
    await h.blobs.downloadToFile(key, join(dir, 'out'));
    expect((await readFile(join(dir, 'out'))).equals(data)).toBe(true);
    await rm(dir, { recursive: true, force: true });
  });

  it('deletes one key, and a prefix only on segment boundaries', async () => {
    const base = k('jobs');
    const keys = [`${base}/a/vocals.mp3`, `${base}/a/deep/drums.mp3`, `${base}/ab/bass.mp3`, `${base}/b/other.mp3`];
    for (const key of keys) await h.blobs.put(key, body('x'), { contentType: 'audio/mpeg' });
    await h.blobs.delete(keys[3]!);
    expect(await h.blobs.stat(keys[3]!)).toBeNull();
    await h.blobs.deletePrefix(`${base}/a/`);
    expect(await h.blobs.stat(keys[0]!)).toBeNull();
    expect(await h.blobs.stat(keys[1]!)).toBeNull();
    expect(await h.blobs.stat(keys[2]!)).toEqual({ size: 1, contentType: 'audio/mpeg' });
    await h.blobs.deletePrefix(`${base}/missing/`);
    for (const bad of ['', '/', `${base}/a`, '../', 'a//', `${base}/../`]) {
      await expect(h.blobs.deletePrefix(bad)).rejects.toBeInstanceOf(InvalidBlobKeyError);
    }
    expect(await h.blobs.stat(keys[2]!)).not.toBeNull();
  });

  it('lists the folders right under a prefix, those holding blobs only (issue 41: the orphan sweep)', async () => {
    const base = k('folders');
    for (const key of [
      `${base}/job_a/vocals.mp3`,
      `${base}/job_a/deep/x.json`,
      `${base}/job_b/o.mp3`,
      `${base}/loose.mp3`,
    ]) {
      await h.blobs.put(key, body('x'), { contentType: 'audio/mpeg' });
    }
    expect((await h.blobs.listFolders(`${base}/`)).sort()).toEqual(['job_a', 'job_b']);
    expect(await h.blobs.listFolders(`${base}/job_a/`)).toEqual(['deep']);
    expect(await h.blobs.listFolders(`${base}/nothing/`)).toEqual([]);
    await h.blobs.deletePrefix(`${base}/job_b/`);
    expect(await h.blobs.listFolders(`${base}/`)).toEqual(['job_a']);
    await expect(h.blobs.listFolders(base)).rejects.toBeInstanceOf(InvalidBlobKeyError);
  });

  it('rejects keys outside the grammar in every method, before touching storage', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'stemforge-keys-'));
    for (const key of BAD_KEYS) {
      await expect(h.blobs.put(key, body('x'), { contentType: 'text/plain' }), key).rejects.toBeInstanceOf(
        InvalidBlobKeyError,
      );
      await expect(h.blobs.putFile(key, '/dev/null', { contentType: 'text/plain' }), key).rejects.toBeInstanceOf(
        InvalidBlobKeyError,
      );
      await expect(h.blobs.stat(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      await expect(h.blobs.createReadStream(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      await expect(h.blobs.downloadToFile(key, join(dir, 'x')), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      await expect(h.blobs.delete(key), key).rejects.toBeInstanceOf(InvalidBlobKeyError);
      await expect(
        h.blobs.signedDownloadUrl(key, { fileName: 'a', contentType: 'text/plain', expiresInSeconds: 60 }),
        key,
      ).rejects.toBeInstanceOf(InvalidBlobKeyError);
    }
    await rm(dir, { recursive: true, force: true });
    expect(await h.blobs.stat('uploads/acc_1.x/up-2_B/source')).toBeNull();
  });

  it('signs a download URL that serves the bytes with the granted name and type', async () => {
    const key = k('vocals.mp3');
    await h.blobs.put(key, body('ID3 fake mp3 bytes'), { contentType: 'application/octet-stream' });
    const before = Date.now();
    const { url, expiresAt } = await h.blobs.signedDownloadUrl(key, {
      fileName: 'My Song – vocals.mp3',
      contentType: 'audio/mpeg',
      expiresInSeconds: 3600,
    });
    expect(Math.abs(expiresAt.getTime() - (before + 3600_000))).toBeLessThan(2000);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('audio/mpeg');
    expect(res.headers.get('content-length')).toBe('18');
    expect(res.headers.get('cache-control')).toBe('private');
    expect(res.headers.get('content-disposition')).toContain(`filename*=UTF-8''My%20Song%20%E2%80%93%20vocals.mp3`);
    expect(await res.text()).toBe('ID3 fake mp3 bytes');
  });

  it('declares what its backend can do; its download URLs point at this site or at an origin it declares', async () => {
    expect(h.blobs.capabilities.sharedBetweenProcesses).toBe(STORAGE_BACKENDS[h.backend].sharedBetweenProcesses);
    const { url } = await h.blobs.signedDownloadUrl(k('drums.mp3'), {
      fileName: 'drums.mp3',
      contentType: 'audio/mpeg',
      expiresInSeconds: 60,
    });
    const origin = new URL(url).origin;
    expect(origin === new URL(h.site).origin || h.blobs.capabilities.downloadOrigins.includes(origin)).toBe(true);
  });

  it('refuses tampered download URLs', async () => {
    const key = k('tamper.mp3');
    await h.blobs.put(key, body('secret bytes'), { contentType: 'audio/mpeg' });
    const { url } = await h.blobs.signedDownloadUrl(key, {
      fileName: 'a.mp3',
      contentType: 'audio/mpeg',
      expiresInSeconds: 600,
    });
    const other = k('other.mp3');
    await h.blobs.put(other, body('other bytes'), { contentType: 'audio/mpeg' });
    const u = new URL(url);
    const sigParam = u.searchParams.has('sig') ? 'sig' : 'X-Amz-Signature';
    const variants: URL[] = [];
    const flip = new URL(url);
    const sig = flip.searchParams.get(sigParam)!;
    flip.searchParams.set(sigParam, (sig[0] === 'a' ? 'b' : 'a') + sig.slice(1));
    variants.push(flip);
    const otherKey = new URL(url);
    otherKey.pathname = otherKey.pathname.replace('tamper.mp3', 'other.mp3');
    variants.push(otherKey);
    // Change the served name and type: both are covered by the signature in every adapter.
    for (const [name, value] of [...u.searchParams]) {
      if (/^(name|ct|response-content-disposition|response-content-type)$/.test(name)) {
        const v = new URL(url);
        v.searchParams.set(name, value.replace('a.mp3', 'b.html').replace('audio/mpeg', 'text/html'));
        variants.push(v);
      }
    }
    expect(variants.length).toBe(4);
    for (const v of variants) {
      const res = await fetch(v);
      expect(res.status, v.toString()).toBe(403);
      expect(await res.text()).not.toContain('secret bytes');
    }
  });

  it('refuses an expired download URL', async () => {
    const key = k('old.mp3');
    await h.blobs.put(key, body('old bytes'), { contentType: 'audio/mpeg' });
    const { url, expiresAt } = await h.pastStore.signedDownloadUrl(key, {
      fileName: 'old.mp3',
      contentType: 'audio/mpeg',
      expiresInSeconds: 3600,
    });
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    const res = await fetch(url);
    expect(res.status).toBe(403);
    expect(await res.text()).not.toContain('old bytes');
  });

  it('refuses signing options outside the contract', async () => {
    const key = k('opts');
    const ok = { fileName: 'a.mp3', contentType: 'audio/mpeg', expiresInSeconds: 60 };
    await expect(h.blobs.signedDownloadUrl(key, { ...ok, expiresInSeconds: 0 })).rejects.toBeInstanceOf(TypeError);
    await expect(h.blobs.signedDownloadUrl(key, { ...ok, expiresInSeconds: 8 * 24 * 3600 })).rejects.toBeInstanceOf(
      TypeError,
    );
    await expect(h.blobs.signedDownloadUrl(key, { ...ok, fileName: '' })).rejects.toBeInstanceOf(TypeError);
    await expect(
      h.blobs.signedDownloadUrl(key, { ...ok, contentType: 'audio/mpeg\r\nX-Evil: 1' }),
    ).rejects.toBeInstanceOf(TypeError);
  });
});

describe('S3 settings from the environment reach a working store', () => {
  it('puts and reads through createBlobStore(loadConfig(...).storage)', async () => {
    const s3 = await startS3Server();
    const config = loadConfig({
      ...s3Settings(s3),
    });
    const store = createBlobStore(config.storage, {
      publicUrl: config.publicUrl,
      signer: new UrlSigner(randomBytes(32)),
    });
    try {
      await store.put('uploads/acc/up/source', body('from config'), { contentType: 'audio/ogg' });
      expect(await store.stat('uploads/acc/up/source')).toEqual({ size: 11, contentType: 'audio/ogg' });
      const { url } = await store.signedDownloadUrl('uploads/acc/up/source', {
        fileName: 's.ogg',
        contentType: 'audio/ogg',
        expiresInSeconds: 60,
      });
      expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/acc/up/source?`)).toBe(true);
      expect(await (await fetch(url)).text()).toBe('from config');
    } finally {
      await store.close();
      await s3.close();
    }
  });
});

describe('S3_PUBLIC_ENDPOINT (issue 28: compose reaches the bucket as minio:9000, browsers as localhost:9000)', () => {
  it('signs download links for the public address, which then work there, and the CSP allows that origin', async () => {
    const s3 = await startS3Server();
    // The same server under another name stands for the address clients use.
    const publicEndpoint = s3.endpoint.replace('127.0.0.1', 'localhost');
    const config = loadConfig({
      STORAGE: 's3',
      S3_BUCKET: s3.bucket,
      S3_ENDPOINT: s3.endpoint,
      S3_PUBLIC_ENDPOINT: publicEndpoint,
      S3_ACCESS_KEY_ID: s3.accessKeyId,
      S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
    });
    const store = createBlobStore(config.storage, {
      publicUrl: config.publicUrl,
      signer: new UrlSigner(randomBytes(32)),
    });
    try {
      await store.put('jobs/j1/vocals.mp3', body('public'), { contentType: 'audio/mpeg' });
      const { url } = await store.signedDownloadUrl('jobs/j1/vocals.mp3', {
        fileName: 'v.mp3',
        contentType: 'audio/mpeg',
        expiresInSeconds: 60,
      });
      expect(url.startsWith(`${publicEndpoint}/${s3.bucket}/jobs/j1/vocals.mp3?`)).toBe(true);
      expect(await (await fetch(url)).text()).toBe('public');
      // Signed for the public host: the same query sent to the service's own address is refused.
      expect((await fetch(url.replace(publicEndpoint, s3.endpoint))).status).toBe(403);
      expect(store.capabilities.downloadOrigins).toEqual([new URL(publicEndpoint).origin]);
    } finally {
      await store.close();
      await s3.close();
    }
  });
});

describe('presigned PUT URLs (issue 30: uploads straight to S3 in scale-out)', () => {
  let s3: Awaited<ReturnType<typeof startS3Server>>;
  let store: S3BlobStore;
  let pastStore: S3BlobStore;
  beforeAll(async () => {
    s3 = await startS3Server();
    const settings = { ...s3, forcePathStyle: true };
    store = new S3BlobStore({ client: createS3Client(settings), bucket: s3.bucket, endpoint: s3.endpoint });
    // Signed 16 minutes ago: a 15-minute grant that has just run out.
    pastStore = new S3BlobStore({
      client: createS3Client(settings),
      bucket: s3.bucket,
      now: () => Date.now() - 16 * 60 * 1000,
    });
  });
  afterAll(async () => {
    await store?.close();
    await pastStore?.close();
    await s3?.close();
  });
  const sign = (s: S3BlobStore, key: string, extra: { contentLength?: number } = {}) =>
    s.signedUploadUrl(key, { contentType: 'audio/mpeg', expiresInSeconds: 900, ...extra });
  const putTo = (url: string, contentType: string, bytes: Buffer | string) =>
    fetch(url, { method: 'PUT', headers: { 'content-type': contentType }, body: bytes });

  it('the URL points at the store; a PUT with the granted Content-Type stores the bytes with that type', async () => {
    const { url, expiresAt } = await sign(store, 'uploads/a/u1/direct');
    expect(url.startsWith(`${s3.endpoint}/${s3.bucket}/uploads/a/u1/direct?`)).toBe(true);
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-type;host');
    expect(Math.abs(expiresAt.getTime() - Date.now() - 900_000)).toBeLessThan(2000);
    const res = await putTo(url, 'audio/mpeg', 'the bytes');
    expect(res.status).toBe(200);
    expect(await store.stat('uploads/a/u1/direct')).toEqual({ size: 9, contentType: 'audio/mpeg' });
  });

  it('refuses a PUT with another Content-Type, and stores nothing', async () => {
    const { url } = await sign(store, 'uploads/a/u2/direct');
    const res = await putTo(url, 'text/html', '<script>');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('SignatureDoesNotMatch');
    expect(await store.stat('uploads/a/u2/direct')).toBeNull();
  });

  it('refuses a PUT after the URL expired, and stores nothing', async () => {
    const { url, expiresAt } = await sign(pastStore, 'uploads/a/u3/direct');
    expect(expiresAt.getTime()).toBeLessThan(Date.now());
    const res = await putTo(url, 'audio/mpeg', 'late bytes');
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('AccessDenied');
    expect(await store.stat('uploads/a/u3/direct')).toBeNull();
  });

  it('with a Content-Length bound, refuses a body of another size (the size limit enforced by the store)', async () => {
    const { url } = await sign(store, 'uploads/a/u4/direct', { contentLength: 5 });
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;content-type;host');
    expect((await putTo(url, 'audio/mpeg', 'six by')).status).toBe(403);
    expect(await store.stat('uploads/a/u4/direct')).toBeNull();
    expect((await putTo(url, 'audio/mpeg', 'five!')).status).toBe(200);
    expect((await store.stat('uploads/a/u4/direct'))?.size).toBe(5);
  });

  it('a tampered URL (another key) is refused', async () => {
    const { url } = await sign(store, 'uploads/a/u5/direct');
    const res = await putTo(url.replace('/u5/', '/u6/'), 'audio/mpeg', 'x');
    expect(res.status).toBe(403);
    expect(await store.stat('uploads/a/u6/direct')).toBeNull();
  });

  it('refuses signing options outside the contract', async () => {
    await expect(
      store.signedUploadUrl('uploads/a/u7/direct', { contentType: 'audio/mpeg', expiresInSeconds: 0 }),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(
      store.signedUploadUrl('uploads/a/u7/direct', {
        contentType: 'audio/mpeg',
        expiresInSeconds: 60,
        contentLength: 0,
      }),
    ).rejects.toBeInstanceOf(TypeError);
    await expect(store.signedUploadUrl('../x', { contentType: 'audio/mpeg', expiresInSeconds: 60 })).rejects.toThrow();
  });
});
