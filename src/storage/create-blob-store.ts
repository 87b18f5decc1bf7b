import type { Config } from '../config.ts';
import type { BlobStore } from './blob-store.ts';
import { DiskBlobStore } from './disk-store.ts';
import { createS3Client, S3BlobStore } from './s3-store.ts';
import type { UrlSigner } from './url-signer.ts';

/**
 * The blob store the configuration asks for: files under `storage.root` with API-served signed URLs,
 * or an S3 bucket with presigned URLs. `publicUrl` is the site URL (no `/v1`).
 */
export function createBlobStore(storage: Config['storage'], deps: { publicUrl: string; signer: UrlSigner }): BlobStore {
  if (storage.kind === 'disk') {
    return new DiskBlobStore({ root: storage.root, publicUrl: deps.publicUrl, signer: deps.signer });
  }
  return new S3BlobStore({ client: createS3Client(storage), bucket: storage.bucket, endpoint: storage.endpoint });
}
