import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { isDependencyUnavailable } from '../domain/dependency-error.ts';
import { isWellFormedApiKey } from '../domain/api-key.ts';
import { findApiKey, touchApiKey } from '../store/api-keys.ts';
import type { Db } from '../store/schema.ts';
import type { RateLimiter } from '../ratelimit/rate-limiter.ts';

export interface AuthDeps {
  db: Db;
  rateLimiter: RateLimiter;
  requestsPerMinute: number;
}

const TOUCH_INTERVAL_MS = 60_000;

/** Job reads (`rateBucket: 'poll'`) have their own budget of this many times the per-minute limit. */
export const POLL_BUDGET_FACTOR = 10;

/**
 * onRequest hook for `auth: 'apiKey'` routes: resolves the Bearer key to its account, then counts
 * the request against the key's per-minute budget. Rate-limit headers go on every authenticated
 * response, errors included.
 */
export function apiKeyHook(deps: AuthDeps) {
  const lastTouched = new Map<string, number>();
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    if (request.routeOptions.config?.auth !== 'apiKey') return;
    const header = request.headers.authorization;
    if (!header?.trim()) throw new ApiError('MISSING_API_KEY');
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    const token = match?.[1];
    if (token === undefined || !isWellFormedApiKey(token)) {
      throw new ApiError('INVALID_API_KEY', 'The API key is malformed. Send "Authorization: Bearer sk_live_...".');
    }
    const key = await findApiKey(deps.db, token);
    if (!key) throw new ApiError('INVALID_API_KEY');
    if (key.revoked) throw new ApiError('API_KEY_REVOKED');
    if (key.accountDisabled) throw new ApiError('ACCOUNT_DISABLED');

    // If the counters are unreachable (Redis down), fail open, at once: an outage of the limiter
    // must not take the whole API down with it, nor slow it. Redis being away is logged by the
    // dependency monitor (once a minute), anything else here.
    const poll = request.routeOptions.config?.rateBucket === 'poll';
    const bucket = poll ? `${key.id}:poll` : key.id;
    const perMinute = poll ? deps.requestsPerMinute * POLL_BUDGET_FACTOR : deps.requestsPerMinute;
    const limit = await deps.rateLimiter.hit(bucket, perMinute, 60_000).catch((err: Error) => {
      if (!isDependencyUnavailable(err))
        request.log.error({ err: err.message }, 'rate limiter failed; request allowed');
      return null;
    });
    const auth = { accountId: key.accountId, keyId: key.id, isAdmin: key.accountIsAdmin };
    if (!limit) {
      request.auth = auth;
      requireAdmin(request);
      return;
    }
    reply.header('X-RateLimit-Limit', String(limit.limit));
    reply.header('X-RateLimit-Remaining', String(limit.remaining));
    reply.header('X-RateLimit-Reset', String(limit.resetAtUnixSeconds));
    if (!limit.allowed) {
      reply.header('Retry-After', String(limit.retryAfterSeconds));
      throw new ApiError(
        'RATE_LIMIT_EXCEEDED',
        `More than ${limit.limit} requests per minute for this API key; retry in ${limit.retryAfterSeconds} s.`,
      );
    }
    request.auth = auth;
    requireAdmin(request);

    const now = Date.now();
    if ((lastTouched.get(key.id) ?? 0) + TOUCH_INTERVAL_MS < now) {
      lastTouched.set(key.id, now);
      await touchApiKey(deps.db, key.id);
    }
  };
}

/** Admin routes (`admin: true`) answer 403 ADMIN_REQUIRED to every other account's key. */
function requireAdmin(request: FastifyRequest): void {
  if (request.routeOptions.config?.admin && !request.auth?.isAdmin) throw new ApiError('ADMIN_REQUIRED');
}
