import type { UploadDeps } from './deps.ts';

/**
 * Whether upload grants point straight at the blob store: in scale-out, where the store can sign a
 * PUT (S3), so no upload streams through an API process. Embedded mode keeps the API's own signed
 * route (`PUT /v1/uploads/:id`), which probes the file as it arrives.
 */
export function directUploads(deps: Pick<UploadDeps, 'config' | 'blobs'>): boolean {
  return deps.config.deployment.mode === 'scale-out' && typeof deps.blobs.signedUploadUrl === 'function';
}

/** The one key a direct grant's PUT writes (below the upload's prefix, so retention deletes it). */
export const DIRECT_UPLOAD_OBJECT = 'direct';
