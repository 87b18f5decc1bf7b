import { deleteUpload, insertUpload, type UploadRow } from '../store/uploads.ts';
import type { UploadDeps } from './deps.ts';
import { newUploadRow, uploadPrefix } from './grant.ts';

/**
 * The upload row of a one-request (multipart) upload, stored before its bytes arrive. Its
 * expires_at is the upload time: the retention sweeper deletes it one retention period later unless a
 * job still needs it (`src/worker/retention.ts`). The extension picks the stored type, as for a grant.
 */
export async function openFormUpload(deps: Pick<UploadDeps, 'db'>, accountId: string, fileName: string) {
  const row = newUploadRow(accountId, fileName, { expiresAt: new Date() });
  await insertUpload(deps.db, row);
  return row;
}

/** Removes what a refused form upload left: its stored object and its row. */
export async function discardFormUpload(deps: Pick<UploadDeps, 'db' | 'blobs'>, row: UploadRow): Promise<void> {
  await deps.blobs.deletePrefix(uploadPrefix(row)).catch(() => undefined);
  await deleteUpload(deps.db, row.id).catch(() => undefined);
}
