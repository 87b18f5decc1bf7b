import { ApiError } from '../domain/errors.ts';
import { createApiKey, revokeApiKey } from '../store/api-keys.ts';
import type { Db } from '../store/schema.ts';

/**
 * A new key for the account; past MAX_ACTIVE_KEYS the store throws KeyLimitError, answered
 * API_KEY_LIMIT_REACHED (src/http/error-table.ts).
 */
export function issueKey(db: Db, accountId: string, name: string) {
  return createApiKey(db, accountId, name);
}

/** Revokes one of the account's keys; another account's id is the same 404 as an unknown one. */
export async function revokeKey(db: Db, accountId: string, keyId: string): Promise<void> {
  if (!(await revokeApiKey(db, keyId, accountId))) throw new ApiError('NOT_FOUND', `No API key '${keyId}'.`);
}
