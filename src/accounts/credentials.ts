import { findPasswordHash, setPasswordHash } from '../store/account-passwords.ts';
import type { Db } from '../store/schema.ts';
import { deleteOtherSessions } from '../store/sessions.ts';
import { hashPassword, verifyPassword } from './password.ts';

/** The account's dashboard password is `password` (constant-time; false without one). */
export async function passwordMatches(db: Db, accountId: string, password: string): Promise<boolean> {
  const stored = await findPasswordHash(db, accountId);
  return stored !== null && (await verifyPassword(password, stored));
}

/** Sets a signed-in account's new password; every other session of the account ends. */
export async function changePassword(
  db: Db,
  session: { accountId: string; id: string },
  newPassword: string,
): Promise<void> {
  await setPasswordHash(db, session.accountId, await hashPassword(newPassword));
  await deleteOtherSessions(db, session.accountId, session.id);
}
