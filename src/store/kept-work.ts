import type { DbOrTx } from './schema.ts';

/**
 * Records that the running stage's work is kept up to `units` (its own units: a separation's
 * segments), by the worker holding the job; only ever raised. A later death is then not at the
 * same place as the one before it (`claimJob` counts `stalled_crashes` from it).
 */
export async function raiseWorkKept(db: DbOrTx, id: string, owner: string, units: number): Promise<void> {
  await db
    .updateTable('jobs')
    .set({ work_kept: units })
    .where('id', '=', id)
    .where('lease_owner', '=', owner)
    .where('status', '=', 'PROCESSING')
    .where('work_kept', '<', units)
    .execute();
}
