import { describe, expect, it } from 'vitest';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../src/config.ts';
import { createBlobStore } from '../../src/storage/create-blob-store.ts';
import { UrlSigner } from '../../src/storage/url-signer.ts';
import { directUploads } from '../../src/uploads/direct.ts';

const S3 = {
  STORAGE: 's3',
  S3_BUCKET: 'stems',
  S3_ENDPOINT: 'http://minio:9000',
  S3_PUBLIC_ENDPOINT: 'https://files.example.com',
  S3_ACCESS_KEY_ID: 'id',
  S3_SECRET_ACCESS_KEY: 'secret',
};
const SCALE_OUT = {
  ...S3,
  STEMFORGE_MODE: 'scale-out',
  DATABASE_URL: 'postgres://stemforge:pw@db/stemforge',
  REDIS_URL: 'redis://redis:6379',
  STEMFORGE_SIGNING_SECRET: 'x'.repeat(32),
};

/** Builds the configured store (no request is sent) and asks where upload grants point. */
async function decide(env: Record<string, string>) {
  const config = loadConfig(env);
  const store = createBlobStore(config.storage, {
    publicUrl: config.publicUrl,
    signer: new UrlSigner(randomBytes(32)),
  });
  try {
    const direct = directUploads({ config, blobs: store });
    const url = direct
      ? (await store.signedUploadUrl!('uploads/a/u/direct', { contentType: 'audio/mpeg', expiresInSeconds: 900 })).url
      : null;
    return { direct, url };
  } finally {
    await store.close();
  }
}

describe('where upload grants point (issue 30)', () => {
  it('scale-out on S3: straight to the bucket, at the address clients use (S3_PUBLIC_ENDPOINT)', async () => {
    const { direct, url } = await decide(SCALE_OUT);
    expect(direct).toBe(true);
    expect(url?.startsWith('https://files.example.com/stems/uploads/a/u/direct?')).toBe(true);
    const query = new URL(url!).searchParams;
    expect(query.get('X-Amz-Expires')).toBe('900');
    expect(query.get('X-Amz-SignedHeaders')).toBe('content-type;host');
  });

  it('embedded keeps its signed route, even on S3 storage', async () => {
    expect((await decide(S3)).direct).toBe(false);
  });

  it('embedded on disk keeps its signed route (the disk store cannot sign a PUT)', async () => {
    expect((await decide({})).direct).toBe(false);
  });
});
