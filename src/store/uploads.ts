import type { DbOrTx, UploadsTable } from './schema.ts';

export type UploadRow = UploadsTable;

export async function insertUpload(db: DbOrTx, row: UploadRow): Promise<void> {
  await db.insertInto('uploads').values(row).execute();
}

export async function findUpload(db: DbOrTx, id: string): Promise<UploadRow | null> {
  return (await db.selectFrom('uploads').selectAll().where('id', '=', id).executeTakeFirst()) ?? null;
}

/**
 * Marks a pending upload complete with the stored file's key, size and duration, in one conditional
 * UPDATE (the grant's single winner); false when another PUT already completed it.
 */
export async function completeUpload(
  db: DbOrTx,
  id: string,
  file: { storageKey: string; sizeBytes: number; durationSeconds: number },
): Promise<boolean> {
  const { storageKey, sizeBytes, durationSeconds } = file;
  const r = await db
    .updateTable('uploads')
    .set({
      status: 'uploaded',
      storage_key: storageKey,
      size_bytes: sizeBytes,
      duration_seconds: durationSeconds,
      uploaded_at: new Date().toISOString(),
    })
    .where('id', '=', id)
    .where('status', '=', 'pending')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Pending grants whose URL expired long ago, and uploads never used: for the retention sweeper. */
export async function listExpiredUploads(db: DbOrTx, olderThan: string): Promise<UploadRow[]> {
  return db.selectFrom('uploads').selectAll().where('expires_at', '<', olderThan).execute();
}

export async function deleteUpload(db: DbOrTx, id: string): Promise<void> {
  await db.deleteFrom('uploads').where('id', '=', id).execute();
}
