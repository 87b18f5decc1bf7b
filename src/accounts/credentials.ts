import { ApiError } from '../domain/errors.ts';
import { findPasswordHash, setPasswordHash } from '../store/account-passwords.ts';
import type { Db } from '../store/schema.ts';
import { deleteOtherSessions } from '../store/sessions.ts';
import { hashPassword, verifyPassword } from './password.ts';

/** Changes a signed-in account's password after checking the current one; its other sessions end. */
export async function changePassword(
  db: Db,
  session: { accountId: string; id: string },
  currentPassword: string,
  newPassword: string,
): Promise<void> {
  const stored = await findPasswordHash(db, session.accountId);
  if (!stored || !(await verifyPassword(currentPassword, stored))) {
    throw new ApiError('INVALID_CREDENTIALS', 'The current password is wrong.');
  }
  await setPasswordHash(db, session.accountId, await hashPassword(newPassword));
  await deleteOtherSessions(db, session.accountId, session.id);
}
