import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import type { Runtime } from '../runtime.ts';
import { readCookie, SESSION_COOKIE } from './cookies.ts';
import { type DashboardSession, resolveSession, sameToken } from './sessions.ts';

declare module 'fastify' {
  interface FastifyRequest {
    dashboard?: DashboardSession;
  }
}

export const DASHBOARD_API = '/dashboard/api';
const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The signed-in session of a dashboard route (the guard has checked it); throws when absent. */
export function sessionOf(request: FastifyRequest): DashboardSession {
  if (!request.dashboard) throw new ApiError('NOT_SIGNED_IN');
  return request.dashboard;
}

/**
 * An Origin header, when the browser sends one, must be this site: the configured PUBLIC_URL or
 * the origin the request was addressed to (a local instance reached as localhost or 127.0.0.1).
 * A page on another site cannot make the browser send our Host with its own Origin.
 */
function sameOrigin(request: FastifyRequest, publicUrl: string): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  return origin === new URL(publicUrl).origin || origin === `${request.protocol}://${request.host}`;
}

/**
 * onRequest hook for `/dashboard/api/*` (docs/dashboard.md): resolves the `sf_session` cookie to its
 * session, refuses state-changing requests without the session's X-CSRF-Token or from another
 * Origin, and counts requests per session against a generous limit of their own (not the API
 * key's). Sign-in (POST /session) has no session yet: only its Origin is checked.
 */
export function dashboardGuard(rt: Runtime) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const [path = ''] = request.url.split('?', 1);
    if (!path.startsWith(`${DASHBOARD_API}/`)) return;
    reply.header('cache-control', 'no-store');
    const unsafe = !SAFE_METHODS.has(request.method);
    if (unsafe && !sameOrigin(request, rt.config.publicUrl)) throw new ApiError('CSRF_TOKEN_INVALID');
    if (request.method === 'POST' && path === `${DASHBOARD_API}/session`) return;
    const session = await resolveSession(rt.db, readCookie(request.headers.cookie, SESSION_COOKIE));
    if (!session) throw new ApiError('NOT_SIGNED_IN');
    // A disabled account can still sign out (and so drop its cookie), nothing else.
    const signOut = request.method === 'DELETE' && path === `${DASHBOARD_API}/session`;
    if (session.disabled && !signOut) throw new ApiError('ACCOUNT_DISABLED');
    if (unsafe && !sameToken(request.headers['x-csrf-token'], session.csrfToken)) {
      throw new ApiError('CSRF_TOKEN_INVALID');
    }
    const limit = await rt.rateLimiter
      .hit(`dash:${session.id}`, rt.config.dashboard.requestsPerMinute, 60_000)
      .catch(() => null); // fail open, as the API key limit does
    if (limit && !limit.allowed) {
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `More than ${limit.limit} dashboard requests per minute; retry in ${limit.retryAfterSeconds} s.`,
        {},
        { 'Retry-After': String(limit.retryAfterSeconds) },
      );
    }
    request.dashboard = session;
  };
}
