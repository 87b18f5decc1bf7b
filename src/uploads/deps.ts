import type { Logger } from 'pino';
import type { Config } from '../config.ts';
import type { Db } from '../store/schema.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { UrlSigner } from '../storage/url-signer.ts';

/**
 * What the upload service may need from the composition root (`src/runtime.ts` satisfies it).
 * Each function names the part it uses with `Pick<UploadDeps, ...>`.
 */
export interface UploadDeps {
  config: Config;
  db: Db;
  blobs: BlobStore;
  signer: UrlSigner;
  log: Logger;
}
