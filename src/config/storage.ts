import { join } from 'node:path';
import type { StorageBackendName, StorageSettings } from '../storage/backends.ts';
import type { EnvSettings } from './env.ts';

/** Each backend's settings from the environment; a backend declared without its entry fails to compile. */
export const STORAGE_SETTINGS: Record<StorageBackendName, (e: EnvSettings, dataDir: string) => StorageSettings> = {
  disk: (_e, dataDir) => ({ kind: 'disk', root: join(dataDir, 'blobs') }),
  s3: (e) => ({
    kind: 's3',
    bucket: e.S3_BUCKET!,
    region: e.S3_REGION,
    endpoint: e.S3_ENDPOINT,
    publicEndpoint: e.S3_PUBLIC_ENDPOINT,
    accessKeyId: e.S3_ACCESS_KEY_ID,
    secretAccessKey: e.S3_SECRET_ACCESS_KEY,
    forcePathStyle: e.S3_FORCE_PATH_STYLE,
  }),
};
