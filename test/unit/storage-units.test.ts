import { describe, expect, it } from 'vitest';
import { assertBlobKey, assertBlobPrefix, isBlobKey } from '../../src/storage/blob-key.ts';
import { parseByteRange } from '../../src/storage/byte-range.ts';
import { attachmentDisposition } from '../../src/storage/content-disposition.ts';
import { buildDownloadUrl, verifyDownloadQuery } from '../../src/storage/download-url.ts';
import { InvalidBlobKeyError } from '../../src/storage/errors.ts';
import { UrlSigner } from '../../src/storage/url-signer.ts';
import { loadConfig } from '../../src/config.ts';
import { createBlobStore } from '../../src/storage/create-blob-store.ts';
import { DiskBlobStore } from '../../src/storage/disk-store.ts';
import { S3BlobStore } from '../../src/storage/s3-store.ts';
import { createRateLimiter } from '../../src/ratelimit/create-rate-limiter.ts';
import { MemoryRateLimiter } from '../../src/ratelimit/memory-rate-limiter.ts';
import { RedisRateLimiter } from '../../src/ratelimit/redis-rate-limiter.ts';

const SECRET = 'a-test-signing-secret-of-32-bytes!!';

describe('UrlSigner', () => {
  const signer = new UrlSigner(SECRET);

  it('verifies its own signature whatever the field order, and nothing else', () => {
    const sig = signer.sign({ method: 'PUT', key: 'uploads/a/b/source', exp: '1700000000' });
    expect(sig).toMatch(/^[0-9a-f]{64}$/);
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT' }, sig)).toBe(true);
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'GET' }, sig)).toBe(false);
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT', extra: '' }, sig)).toBe(false);
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT' }, sig.toUpperCase())).toBe(
      true,
    );
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT' }, sig.slice(1))).toBe(false);
    expect(signer.verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT' }, undefined)).toBe(false);
    expect(
      new UrlSigner(`${SECRET}x`).verify({ exp: '1700000000', key: 'uploads/a/b/source', method: 'PUT' }, sig),
    ).toBe(false);
  });

  it('cannot be fooled by moving a delimiter between fields', () => {
    // With a naive "name=value&..." message these two would sign the same bytes.
    const a = signer.sign({ a: 'x&b=y', b: '' });
    const b = signer.sign({ a: 'x', b: 'y&b=' });
    expect(a).not.toBe(b);
    expect(signer.sign({ ab: 'c' })).not.toBe(signer.sign({ a: 'bc' }));
  });

  it('refuses a short secret', () => {
    expect(() => new UrlSigner('short')).toThrow(RangeError);
  });
});

describe('download URLs', () => {
  const signer = new UrlSigner(SECRET);
  const grant = { key: 'jobs/j1/vocals.mp3', exp: 2_000_000_000, fileName: 'a b+c&d.mp3', contentType: 'audio/mpeg' };

  it('round-trips through URL encoding, including spaces and plus signs', () => {
    const url = new URL(buildDownloadUrl('https://stemforge.example/', signer, grant));
    expect(url.pathname).toBe('/v1/blobs/jobs/j1/vocals.mp3');
    const query = Object.fromEntries(url.searchParams);
    expect(query.name).toBe('a b+c&d.mp3');
    expect(verifyDownloadQuery(signer, grant.key, query, 1_999_999_999_000)).toEqual({ ok: true, grant });
    expect(verifyDownloadQuery(signer, grant.key, query, 2_000_000_000_000)).toEqual({ ok: false, reason: 'expired' });
    expect(verifyDownloadQuery(signer, 'jobs/j1/drums.mp3', query, 0)).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
    expect(verifyDownloadQuery(signer, grant.key, { ...query, exp: '2e9' }, 0)).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
    expect(verifyDownloadQuery(signer, grant.key, { ...query, sig: [query.sig] }, 0)).toEqual({
      ok: false,
      reason: 'invalid-signature',
    });
  });

  it('never signs a key outside the grammar', () => {
    expect(() => buildDownloadUrl('http://x', signer, { ...grant, key: '../x' })).toThrow(InvalidBlobKeyError);
  });
});

describe('blob key grammar', () => {
  it.each(['uploads/acc_1/up_2/source', 'jobs/j-1/vocals.mp3', 'a', '.hidden/x', 'a..b/c'])('accepts %s', (key) => {
    expect(assertBlobKey(key)).toBe(key);
  });
  it.each([
    '',
    '/a',
    'a/',
    'a//b',
    '..',
    'a/../b',
    '...',
    'a/./b',
    'a\\b',
    'a b',
    'é',
    'a:b',
    'a\nb',
    `a/${'x'.repeat(256)}`,
  ])('rejects %j', (key) => {
    expect(isBlobKey(key)).toBe(false);
    expect(() => assertBlobKey(key)).toThrow(InvalidBlobKeyError);
  });
  it('requires prefixes to end with a slash', () => {
    expect(assertBlobPrefix('jobs/j1/')).toBe('jobs/j1/');
    for (const p of ['', '/', 'jobs/j1', 'jobs//', '../'])
      expect(() => assertBlobPrefix(p)).toThrow(InvalidBlobKeyError);
  });
});

describe('parseByteRange (RFC 9110 section 14)', () => {
  it.each([
    [undefined, 100, null],
    ['bytes=0-0', 100, { start: 0, end: 0 }],
    ['bytes=0-', 100, { start: 0, end: 99 }],
    ['bytes=50-200', 100, { start: 50, end: 99 }],
    ['bytes=-1', 100, { start: 99, end: 99 }],
    ['bytes=-100', 100, { start: 0, end: 99 }],
    ['bytes=-101', 100, { start: 0, end: 99 }],
    ['Bytes = 1 - 2', 100, { start: 1, end: 2 }],
    ['bytes=100-', 100, 'unsatisfiable'],
    ['bytes=-0', 100, 'unsatisfiable'],
    ['bytes=0-', 0, 'unsatisfiable'],
    ['bytes=-5', 0, 'unsatisfiable'],
    ['bytes=2-1', 100, null],
    ['bytes=-', 100, null],
    ['bytes=0-1,3-4', 100, null],
    ['bytes=99999999999999999999-', 100, null],
    ['octets=0-1', 100, null],
  ] as const)('%s of %i bytes', (header, size, expected) => {
    expect(parseByteRange(header, size)).toEqual(expected);
  });
});

describe('attachmentDisposition (RFC 6266, RFC 8187)', () => {
  it('keeps plain names readable in both forms', () => {
    expect(attachmentDisposition('track-vocals.mp3')).toBe(
      `attachment; filename="track-vocals.mp3"; filename*=UTF-8''track-vocals.mp3`,
    );
  });
  it('cannot be broken out of by quotes, CR/LF or path separators', () => {
    const cd = attachmentDisposition('a"\r\nSet-Cookie: x=1/..\\b.mp3');
    expect(cd).not.toMatch(/[\r\n]/);
    expect(cd).toBe(
      `attachment; filename="a_Set-Cookie: x=1_.._b.mp3"; filename*=UTF-8''a%22Set-Cookie%3A%20x%3D1_.._b.mp3`,
    );
  });
  it('encodes non-ASCII, lone surrogates and RFC 8187 specials', () => {
    expect(attachmentDisposition("日本's (1)*.wav")).toBe(
      `attachment; filename="__'s (1)*.wav"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%27s%20%281%29%2A.wav`,
    );
    expect(attachmentDisposition('x\ud800.mp3')).toContain(`filename*=UTF-8''x%EF%BF%BD.mp3`);
  });
});

describe('createBlobStore', () => {
  const deps = { publicUrl: 'http://127.0.0.1:8080', signer: new UrlSigner(SECRET) };
  it('builds the adapter the configuration names', async () => {
    const disk = loadConfig({ STEMFORGE_DATA_DIR: '/tmp/stemforge-factory' });
    expect(createBlobStore(disk.storage, deps)).toBeInstanceOf(DiskBlobStore);
    const s3 = loadConfig({ STORAGE: 's3', S3_BUCKET: 'b-stemforge', S3_ENDPOINT: 'http://127.0.0.1:9' });
    const store = createBlobStore(s3.storage, deps);
    expect(store).toBeInstanceOf(S3BlobStore);
    await store.close();
  });
});

describe('createRateLimiter', () => {
  it('uses memory when embedded and Redis in scale-out', async () => {
    expect(createRateLimiter({ deployment: { mode: 'embedded' } })).toBeInstanceOf(MemoryRateLimiter);
    const redis = createRateLimiter({ deployment: { mode: 'scale-out', redisUrl: 'redis://127.0.0.1:6379' } });
    expect(redis).toBeInstanceOf(RedisRateLimiter);
    await redis.close();
  });
});
