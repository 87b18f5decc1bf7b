import type { DbOrTx } from './schema.ts';
import { withAccountLock } from './account-lock.ts';
import { newId } from '../domain/ids.ts';
import { displayPrefix, generateApiKey, hashApiKey, sameHash } from '../domain/api-key.ts';

export const MAX_ACTIVE_KEYS = 5;

export interface ApiKeyInfo {
  id: string;
  accountId: string;
  prefix: string;
  name: string | null;
  createdAt: string;
  revokedAt: string | null;
  lastUsedAt: string | null;
}

export class KeyLimitError extends Error {}

/**
 * Creates a key and returns it in clear: this is the only time it is ever seen. The limit check and
 * the insert run under the account's lock (`account-lock.ts`), so racing creations never leave
 * more than MAX_ACTIVE_KEYS active keys.
 */
export async function createApiKey(
  db: DbOrTx,
  accountId: string,
  name: string | null = null,
): Promise<{ key: string; info: ApiKeyInfo }> {
  return withAccountLock(db, accountId, async (tx) => {
    const active = await tx
      .selectFrom('api_keys')
      .select((eb) => eb.fn.countAll<string | number>().as('n'))
      .where('account_id', '=', accountId)
      .where('revoked_at', 'is', null)
      .executeTakeFirstOrThrow();
    if (Number(active.n) >= MAX_ACTIVE_KEYS) {
      throw new KeyLimitError(`account ${accountId} already has ${MAX_ACTIVE_KEYS} active keys; revoke one first`);
    }
    const key = generateApiKey();
    const row = {
      id: newId('key'),
      account_id: accountId,
      prefix: displayPrefix(key),
      name,
      hash: hashApiKey(key),
      created_at: new Date().toISOString(),
      revoked_at: null,
      last_used_at: null,
    };
    await tx.insertInto('api_keys').values(row).execute();
    return { key, info: toInfo(row) };
  });
}

/**
 * Finds the key record for a presented key. Candidates are narrowed by the non-secret display
 * prefix, then every candidate's hash is compared in constant time.
 */
export async function findApiKey(db: DbOrTx, presented: string): Promise<FoundApiKey | null> {
  const hash = hashApiKey(presented);
  const candidates = await db
    .selectFrom('api_keys')
    .innerJoin('accounts', 'accounts.id', 'api_keys.account_id')
    .selectAll('api_keys')
    .select(['accounts.is_admin', 'accounts.disabled_at'])
    .where('prefix', '=', displayPrefix(presented))
    .execute();
  let match: (typeof candidates)[number] | undefined;
  for (const c of candidates) if (sameHash(c.hash, hash)) match = c;
  return match
    ? {
        ...toInfo(match),
        revoked: match.revoked_at !== null,
        accountIsAdmin: match.is_admin === 1,
        accountDisabled: match.disabled_at !== null,
      }
    : null;
}

/** A presented key's record, with what its account may do. */
export interface FoundApiKey extends ApiKeyInfo {
  revoked: boolean;
  accountIsAdmin: boolean;
  accountDisabled: boolean;
}

export async function listApiKeys(db: DbOrTx, accountId: string): Promise<ApiKeyInfo[]> {
  const rows = await db
    .selectFrom('api_keys')
    .selectAll()
    .where('account_id', '=', accountId)
    .orderBy('created_at')
    .execute();
  return rows.map(toInfo);
}

/**
 * Revokes a key; returns false when no such key exists (or, given `accountId`, when it is another
 * account's). Revoking twice is harmless.
 */
export async function revokeApiKey(db: DbOrTx, keyId: string, accountId?: string): Promise<boolean> {
  let q = db.selectFrom('api_keys').select(['id', 'revoked_at']).where('id', '=', keyId);
  if (accountId) q = q.where('account_id', '=', accountId);
  const existing = await q.executeTakeFirst();
  if (!existing) return false;
  if (!existing.revoked_at) {
    await db.updateTable('api_keys').set({ revoked_at: new Date().toISOString() }).where('id', '=', keyId).execute();
  }
  return true;
}

export async function touchApiKey(db: DbOrTx, keyId: string): Promise<void> {
  await db.updateTable('api_keys').set({ last_used_at: new Date().toISOString() }).where('id', '=', keyId).execute();
}

function toInfo(r: {
  id: string;
  account_id: string;
  prefix: string;
  name: string | null;
  created_at: string;
  revoked_at: string | null;
  last_used_at: string | null;
}): ApiKeyInfo {
  return {
    id: r.id,
    accountId: r.account_id,
    prefix: r.prefix,
    name: r.name,
    createdAt: r.created_at,
    revokedAt: r.revoked_at,
    lastUsedAt: r.last_used_at,
  };
}
