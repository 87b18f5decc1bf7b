import type { DbOrTx } from './schema.ts';

/**
 * Records that a worker has exactly these models now: its rows are replaced in one transaction,
 * so a model removed from a worker's disk disappears at the next heartbeat. Rows of workers unseen
 * since `staleBeforeIso` (they died without saying so) are removed on the way.
 */
export async function recordWorkerModels(
  db: DbOrTx,
  workerId: string,
  models: string[],
  nowIso: string,
  staleBeforeIso: string,
): Promise<void> {
  const write = async (tx: DbOrTx) => {
    await tx
      .deleteFrom('worker_models')
      .where((eb) => eb.or([eb('worker_id', '=', workerId), eb('last_seen_at', '<', staleBeforeIso)]))
      .execute();
    if (models.length > 0) {
      await tx
        .insertInto('worker_models')
        .values(models.map((model) => ({ worker_id: workerId, model, last_seen_at: nowIso })))
        .execute();
    }
  };
  await (db.isTransaction ? write(db) : db.transaction().execute(write));
}

/** Whether a worker seen since `sinceIso` has the model. */
export async function liveWorkerHasModel(db: DbOrTx, model: string, sinceIso: string): Promise<boolean> {
  const row = await db
    .selectFrom('worker_models')
    .select('worker_id')
    .where('model', '=', model)
    .where('last_seen_at', '>=', sinceIso)
    .limit(1)
    .executeTakeFirst();
  return row !== undefined;
}

/** Forgets a worker that stops. */
export async function forgetWorker(db: DbOrTx, workerId: string): Promise<void> {
  await db.deleteFrom('worker_models').where('worker_id', '=', workerId).execute();
}
