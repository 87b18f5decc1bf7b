import type { StorageSettings } from './backends.ts';
import type { BlobStore } from './blob-store.ts';
import { DiskBlobStore } from './disk-store.ts';
import { S3BlobStore } from './s3-store.ts';
import { createS3Client } from './s3-client.ts';
import type { UrlSigner } from './url-signer.ts';

/**
 * The blob store the configuration asks for: files under `storage.root` with API-served signed URLs,
 * or an S3 bucket with presigned URLs (for S3_PUBLIC_ENDPOINT where clients reach the bucket at
 * another address than the service does). `publicUrl` is the site URL (no `/v1`).
 */
export function createBlobStore(
  storage: StorageSettings,
  deps: { publicUrl: string; signer: UrlSigner; timeoutMs?: number; onUnavailable?: (err: unknown) => void },
): BlobStore {
  switch (storage.kind) {
    case 'disk':
      return new DiskBlobStore({ root: storage.root, publicUrl: deps.publicUrl, signer: deps.signer });
    case 's3': {
      const { publicEndpoint } = storage;
      return new S3BlobStore({
        client: createS3Client(storage, {}, deps.timeoutMs),
        // Its parts are buffered: a socket silent for the timeout is a store that stopped answering.
        uploadClient: createS3Client(storage, {
          requestHandler: { connectionTimeout: deps.timeoutMs, socketTimeout: deps.timeoutMs },
        }),
        // Signed for the address clients use; the signature covers the host, so it must be theirs.
        presignClient: publicEndpoint ? createS3Client({ ...storage, endpoint: publicEndpoint }) : undefined,
        bucket: storage.bucket,
        endpoint: publicEndpoint ?? storage.endpoint,
        timeoutMs: deps.timeoutMs,
        onUnavailable: deps.onUnavailable,
      });
    }
    default:
      // A backend declared in storage/backends.ts without its adapter here fails to compile.
      return storage satisfies never;
  }
}
