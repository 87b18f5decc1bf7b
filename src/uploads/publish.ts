import { randomBytes } from 'node:crypto';
import { ApiError } from '../domain/errors.ts';
import { completeUpload, findUpload, type UploadRow } from '../store/uploads.ts';
import { uploadPrefix } from './grant.ts';
import type { UploadDeps } from './deps.ts';

/**
 * Publishes a received, measured file as the upload's one file, atomically, on any blob store.
 *
 * Every PUT stores its bytes under a key of its own (`uploads/<account>/<upload>/source-<random>`),
 * which nothing references: a private object. The grant is then won by one conditional UPDATE
 * (`pending` -> `uploaded`, setting the key, size and duration together), so the row can only ever
 * point at the bytes whose size and duration it records. A PUT that loses (another finished first)
 * deletes its own object and answers 409; stored bytes are never overwritten, so a slow PUT that
 * finishes second cannot replace the winner's file, on disk or on S3 (where a plain PutObject to
 * the shared key would have). A PUT interrupted anywhere (client gone, process killed) leaves at
 * most an unreferenced object under the upload's prefix, which retention deletes with the upload.
 */
export async function publishUpload(
  deps: Pick<UploadDeps, 'db' | 'blobs'>,
  upload: UploadRow,
  file: { path: string; size: number; durationSeconds: number },
): Promise<UploadRow> {
  // Cheap early answer for the common duplicate: the grant is already used, store nothing.
  const current = await findUpload(deps.db, upload.id);
  if (current?.status !== 'pending') throw new ApiError('UPLOAD_ALREADY_COMPLETED');
  const key = `${uploadPrefix(upload)}source-${randomBytes(9).toString('base64url')}`;
  await deps.blobs.putFile(key, file.path, { contentType: upload.content_type });
  let won = false;
  try {
    won = await completeUpload(deps.db, upload.id, {
      storageKey: key,
      sizeBytes: file.size,
      durationSeconds: file.durationSeconds,
    });
  } finally {
    if (!won) await deps.blobs.delete(key).catch(() => undefined);
  }
  if (!won) throw new ApiError('UPLOAD_ALREADY_COMPLETED');
  return {
    ...upload,
    storage_key: key,
    status: 'uploaded',
    size_bytes: file.size,
    duration_seconds: file.durationSeconds,
  };
}
