import { ChangePasswordRequest, SessionInfo, SignInRequest } from '../../contract/dashboard.ts';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { changePassword, passwordMatches } from '../../accounts/credentials.ts';
import { findCredentials } from '../../store/account-passwords.ts';
import { clearedSessionCookie, sessionCookie } from '../cookies.ts';
import { DASHBOARD_API, sessionOf } from '../guard.ts';
import { DUMMY_HASH, verifyPassword } from '../../accounts/password.ts';
import { endSession, SESSION_IDLE_SECONDS, startSession } from '../sessions.ts';
import { admitSignIn } from '../throttle.ts';

const base = { tag: 'Dashboard', auth: 'none' as const };

export function sessionRoutes(rt: Runtime) {
  const secure = rt.config.dashboard.secureCookies;
  return [
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/session`,
      summary: 'Sign in',
      body: SignInRequest,
      status: 200,
      response: SessionInfo,
      handler: async ({ body, request, reply }) => {
        const attempt = await admitSignIn(rt.rateLimiter, body.email, request.ip);
        const account = await findCredentials(rt.db, body.email);
        // The same work and the same answer whether the email is unknown or the password wrong.
        const ok = await verifyPassword(body.password, account?.passwordHash ?? DUMMY_HASH);
        if (!account?.passwordHash || !ok) {
          await attempt.failed();
          throw new ApiError('INVALID_CREDENTIALS');
        }
        await attempt.succeeded();
        // Said only to whoever knows the password.
        if (account.disabled) throw new ApiError('ACCOUNT_DISABLED');
        const session = await startSession(rt.db, account.id);
        reply.header('set-cookie', sessionCookie(session.token, SESSION_IDLE_SECONDS, secure));
        return {
          account: { id: account.id, email: account.email, isAdmin: account.isAdmin },
          csrfToken: session.csrfToken,
        };
      },
    }),
    defineRoute({
      ...base,
      method: 'GET',
      url: `${DASHBOARD_API}/session`,
      summary: 'The signed-in account and the CSRF token',
      status: 200,
      response: SessionInfo,
      handler: async ({ request }) => {
        const s = sessionOf(request);
        return { account: { id: s.accountId, email: s.email, isAdmin: s.isAdmin }, csrfToken: s.csrfToken };
      },
    }),
    defineRoute({
      ...base,
      method: 'DELETE',
      url: `${DASHBOARD_API}/session`,
      summary: 'Sign out',
      status: 204,
      response: null,
      handler: async ({ request, reply }) => {
        await endSession(rt.db, sessionOf(request).id);
        return reply.header('set-cookie', clearedSessionCookie(secure)).code(204).send();
      },
    }),
    defineRoute({
      ...base,
      method: 'POST',
      url: `${DASHBOARD_API}/password`,
      summary: 'Change the password; every other session of the account ends',
      body: ChangePasswordRequest,
      status: 204,
      response: null,
      handler: async ({ body, request, reply }) => {
        const s = sessionOf(request);
        const attempt = await admitSignIn(rt.rateLimiter, s.email, request.ip);
        if (!(await passwordMatches(rt.db, s.accountId, body.currentPassword))) {
          await attempt.failed();
          throw new ApiError('INVALID_CREDENTIALS', 'The current password is wrong.');
        }
        await attempt.succeeded();
        await changePassword(rt.db, s, body.newPassword);
        return reply.code(204).send();
      },
    }),
  ];
}
