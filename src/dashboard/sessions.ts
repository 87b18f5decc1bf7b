import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { Db } from '../store/schema.ts';
import { findAccount } from '../store/accounts.ts';
import {
  deleteExpiredSessions,
  deleteSession,
  findLiveSession,
  insertSession,
  touchSession,
} from '../store/sessions.ts';

/** Sessions end after 7 days without a request (sliding). */
export const SESSION_IDLE_SECONDS = 7 * 24 * 3600;
/** The expiry slides at most once a minute per session: polling does not mean a write per request. */
const TOUCH_INTERVAL_MS = 60_000;

export interface DashboardSession {
  /** SHA-256 of the token (the row id). */
  id: string;
  accountId: string;
  email: string;
  csrfToken: string;
  isAdmin: boolean;
  /** An admin disabled the account: the guard answers 403 ACCOUNT_DISABLED. */
  disabled: boolean;
}

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex');

/** Starts a session: returns the cookie token (never stored) and the row's CSRF token. */
export async function startSession(
  db: Db,
  accountId: string,
): Promise<{ token: string; csrfToken: string; id: string }> {
  const token = randomBytes(32).toString('base64url');
  const csrfToken = randomBytes(32).toString('base64url');
  const now = new Date();
  const id = hashToken(token);
  await insertSession(db, {
    id,
    account_id: accountId,
    csrf_token: csrfToken,
    created_at: now.toISOString(),
    last_seen_at: now.toISOString(),
    expires_at: new Date(now.getTime() + SESSION_IDLE_SECONDS * 1000).toISOString(),
  });
  // Housekeeping piggybacks on sign-ins (rare) rather than a timer in every API process.
  if (Math.random() < 0.1) await deleteExpiredSessions(db, now);
  return { token, csrfToken, id };
}

/** Ends a session (sign-out). */
export async function endSession(db: Db, id: string): Promise<void> {
  await deleteSession(db, id);
}

/** The session a cookie token names, or null (malformed, unknown, expired, or its account gone). */
export async function resolveSession(db: Db, token: string | null): Promise<DashboardSession | null> {
  if (!token || !/^[\w-]{43}$/.test(token)) return null;
  const now = new Date();
  const row = await findLiveSession(db, hashToken(token), now);
  if (!row) return null;
  const account = await findAccount(db, row.account_id);
  if (!account) return null;
  if (Date.parse(row.last_seen_at) + TOUCH_INTERVAL_MS < now.getTime()) {
    await touchSession(db, row.id, now, new Date(now.getTime() + SESSION_IDLE_SECONDS * 1000));
  }
  return {
    id: row.id,
    accountId: row.account_id,
    email: account.email,
    csrfToken: row.csrf_token,
    isAdmin: account.isAdmin,
    disabled: account.disabledAt !== null,
  };
}

/** Constant-time check of the X-CSRF-Token header against the session's token. */
export function sameToken(given: string | string[] | undefined, expected: string): boolean {
  if (typeof given !== 'string') return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
