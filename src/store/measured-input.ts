import type { DbOrTx } from './schema.ts';

/**
 * Records the measured length of a job's input (an upload PUT straight to the blob store, first
 * decoded by the worker): duration, credits required and the input payload with its billed seconds.
 * Only while `owner` holds the job; false otherwise (the caller must then move no credits).
 */
export async function recordMeasuredInput(
  db: DbOrTx,
  id: string,
  owner: string,
  measured: { durationSeconds: number; credits: number; inputJson: string },
): Promise<boolean> {
  const r = await db
    .updateTable('jobs')
    .set({
      duration_seconds: measured.durationSeconds,
      credits_required: measured.credits,
      input_json: measured.inputJson,
    })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'PROCESSING')
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}
