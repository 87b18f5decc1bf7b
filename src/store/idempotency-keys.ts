import { randomUUID } from 'node:crypto';
import type { Db, DbOrTx, IdempotencyKeysTable } from './schema.ts';

export type IdempotencyRow = IdempotencyKeysTable;

export interface ClaimRequest {
  accountId: string;
  key: string;
  requestHash: string;
  now: Date;
  /** A running claim older than this is taken to be a crashed process's, and may be taken over. */
  lockMs: number;
  /** How long the key and its answer are kept. */
  ttlMs: number;
}

/**
 * A claimed key whose answer is written by the transaction that creates the resource (a job), so
 * a crash between that commit and the answer leaving cannot free the key for a second creation.
 */
export interface IdempotentAnswer {
  accountId: string;
  key: string;
  claimId: string;
  /** The route's success status. */
  status: number;
  /** The route's response body for a handler result, exactly as it will be sent. */
  render(result: unknown): string;
}

export type ClaimResult = { kind: 'claimed'; claimId: string } | { kind: 'existing'; row: IdempotencyRow };

/**
 * Claims (account, key) for one request. The primary key decides between racing requests, in one
 * process or many: exactly one insert wins. An expired row, or a running claim whose lock ran out
 * (its process died), is taken over with a conditional update. Otherwise the row is returned for
 * the caller to replay, refuse or wait on.
 */
export async function claimIdempotencyKey(db: Db, req: ClaimRequest): Promise<ClaimResult> {
  const nowIso = req.now.toISOString();
  const claimId = randomUUID();
  const fresh = {
    claim_id: claimId,
    request_hash: req.requestHash,
    status: 'running' as const,
    response_status: null,
    response_body: null,
    created_at: nowIso,
    locked_until: new Date(req.now.getTime() + req.lockMs).toISOString(),
    expires_at: new Date(req.now.getTime() + req.ttlMs).toISOString(),
  };
  const inserted = await db
    .insertInto('idempotency_keys')
    .values({ account_id: req.accountId, key: req.key, ...fresh })
    .onConflict((oc) => oc.columns(['account_id', 'key']).doNothing())
    .executeTakeFirst();
  if (Number(inserted.numInsertedOrUpdatedRows ?? 0) === 1) return { kind: 'claimed', claimId };

  const takenOver = await db
    .updateTable('idempotency_keys')
    .set(fresh)
    .where('account_id', '=', req.accountId)
    .where('key', '=', req.key)
    .where((eb) =>
      eb.or([eb('expires_at', '<=', nowIso), eb.and([eb('status', '=', 'running'), eb('locked_until', '<=', nowIso)])]),
    )
    .executeTakeFirst();
  if (Number(takenOver.numUpdatedRows) === 1) return { kind: 'claimed', claimId };

  const row = await findIdempotencyKey(db, req.accountId, req.key);
  // Deleted between our insert and this read (its request failed): claim again.
  if (!row) return claimIdempotencyKey(db, req);
  return { kind: 'existing', row };
}

export async function findIdempotencyKey(db: Db, accountId: string, key: string): Promise<IdempotencyRow | null> {
  return (
    (await db
      .selectFrom('idempotency_keys')
      .selectAll()
      .where('account_id', '=', accountId)
      .where('key', '=', key)
      .executeTakeFirst()) ?? null
  );
}

/**
 * Stores the answer of the claim's request; false when the claim was lost (taken over after a
 * stall). An answer already written by the creating transaction is replaced by the one sent.
 */
export async function completeIdempotencyKey(
  db: DbOrTx,
  accountId: string,
  key: string,
  claimId: string,
  status: number,
  body: string,
): Promise<boolean> {
  const r = await db
    .updateTable('idempotency_keys')
    .set({ status: 'done', response_status: status, response_body: body })
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('claim_id', '=', claimId)
    .executeTakeFirst();
  return Number(r.numUpdatedRows) === 1;
}

/** Frees the key (the request failed in a way a retry may fix); only the claim's own row. */
export async function releaseIdempotencyKey(db: Db, accountId: string, key: string, claimId: string): Promise<void> {
  await db
    .deleteFrom('idempotency_keys')
    .where('account_id', '=', accountId)
    .where('key', '=', key)
    .where('claim_id', '=', claimId)
    .where('status', '=', 'running')
    .execute();
}

/** Deletes expired keys; returns how many. */
export async function sweepIdempotencyKeys(db: Db, now: Date): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('expires_at', '<=', now.toISOString()).executeTakeFirst();
  return Number(r.numDeletedRows);
}

/** Frees every running claim: at the start of the one process of an embedded deployment, all are a dead process's. */
export async function releaseRunningIdempotencyKeys(db: Db): Promise<number> {
  const r = await db.deleteFrom('idempotency_keys').where('status', '=', 'running').executeTakeFirst();
  return Number(r.numDeletedRows);
}
