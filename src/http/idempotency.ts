import { createHash } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { isDependencyUnavailable } from '../domain/dependency-error.ts';
import { ApiError, type ErrorCode } from '../domain/errors.ts';
import {
  claimIdempotencyKey,
  completeIdempotencyKey,
  releaseIdempotencyKey,
  releaseRunningIdempotencyKeys,
  sweepIdempotencyKeys,
} from '../store/idempotency-keys.ts';
import type { Db } from '../store/schema.ts';

export const IDEMPOTENCY_HEADER = 'idempotency-key';
export const REPLAYED_HEADER = 'Idempotent-Replayed';
/** Stripe's limit; visible ASCII only, so a key is safe to store, compare and show. */
export const MAX_IDEMPOTENCY_KEY_LENGTH = 255;
const KEY_FORMAT = /^[\x21-\x7e]+$/;
/** A duplicate that arrives while the first request runs waits this long for its answer, then gets 409. */
export const IN_PROGRESS_WAIT_MS = 5_000;
const POLL_MS = 100;
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Refusals that judge only what was sent: the same request gets the same answer, so they are
 * stored and replayed. Any other 4xx depends on state that can change (balance, an upload still
 * arriving, a remote site, a limit), and every 5xx is ours: those free the key for a retry.
 */
const DETERMINISTIC_CODES = new Set<ErrorCode>([
  'VALIDATION_ERROR',
  'INVALID_JSON',
  'MISSING_INPUT',
  'CONFLICTING_INPUT',
  'UNSUPPORTED_FORMAT',
  'UNSUPPORTED_MEDIA_TYPE',
  'REQUEST_TOO_LARGE',
  'FILE_TOO_LARGE',
  'AUDIO_TOO_LONG',
  'AUDIO_TOO_SHORT',
  'INVALID_VIDEO_URL',
  'INVALID_TRACK_URL',
]);

export interface IdempotencyDeps {
  db: Db;
  /** How long a key and its answer are kept (Config.idempotencyKeySeconds). */
  ttlSeconds: number;
  /** A running claim older than this was left by a crashed process and is free again. */
  lockMs: number;
  /**
   * This is the only API process (embedded mode, as for job leases): every running claim
   * found at start was left by a killed predecessor and is freed at once, not after lockMs.
   */
  soleProcess: boolean;
}

/**
 * Idempotency-Key on every route declared `idempotent` (the creating POSTs), with Stripe's
 * semantics: per account; the same key and the same request (SHA-256 of method, path and body)
 * replays the first answer, status and body, with `Idempotent-Replayed: true`, and creates nothing;
 * the same key with another request is 409 IDEMPOTENCY_KEY_REUSED; a duplicate arriving while the
 * first runs waits up to IN_PROGRESS_WAIT_MS for its answer, then is 409 IDEMPOTENCY_KEY_IN_PROGRESS.
 * Only 2xx and deterministic 4xx answers are stored; anything else, or a crash, frees the key.
 */
export function installIdempotency(app: FastifyInstance, deps: IdempotencyDeps): void {
  app.addHook('preHandler', async (request, reply) => {
    if (!request.routeOptions.config?.idempotent) return;
    const header = request.headers[IDEMPOTENCY_HEADER];
    if (header === undefined || !request.auth) return;
    const key = Array.isArray(header) ? header.join(', ') : header;
    if (key.length === 0 || key.length > MAX_IDEMPOTENCY_KEY_LENGTH || !KEY_FORMAT.test(key)) {
      throw new ApiError(
        'VALIDATION_ERROR',
        `The Idempotency-Key header must be 1 to ${MAX_IDEMPOTENCY_KEY_LENGTH} visible ASCII characters (got ${key.length}).`,
        { field: 'Idempotency-Key' },
      );
    }
    const accountId = request.auth.accountId;
    const requestHash = fingerprint(request);
    const deadline = Date.now() + IN_PROGRESS_WAIT_MS;
    for (;;) {
      const claim = await claimIdempotencyKey(deps.db, {
        accountId,
        key,
        requestHash,
        now: new Date(),
        lockMs: deps.lockMs,
        ttlMs: deps.ttlSeconds * 1000,
      });
      if (claim.kind === 'claimed') {
        request.idempotency = { accountId, key, claimId: claim.claimId, settled: false };
        return;
      }
      const row = claim.row;
      if (row.request_hash !== requestHash) {
        leaveBodyUnread(request, reply);
        throw new ApiError(
          'IDEMPOTENCY_KEY_REUSED',
          'This Idempotency-Key was used with a different request (method, path or body); use a new key for a new request.',
        );
      }
      if (row.status === 'done' && row.response_status !== null && row.response_body !== null) {
        leaveBodyUnread(request, reply);
        return reply
          .code(row.response_status)
          .header(REPLAYED_HEADER, 'true')
          .type('application/json; charset=utf-8')
          .send(row.response_body);
      }
      if (Date.now() >= deadline) {
        leaveBodyUnread(request, reply);
        throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS', undefined, {}, { 'Retry-After': '1' });
      }
      await sleep(POLL_MS);
    }
  });

  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotency;
    if (!claim || claim.settled) return payload;
    claim.settled = true;
    const status = reply.statusCode;
    try {
      if (typeof payload === 'string' && isStorable(status, payload)) {
        const kept = await completeIdempotencyKey(deps.db, claim.accountId, claim.key, claim.claimId, status, payload);
        if (!kept) request.log.warn('idempotency claim was taken over before its answer was stored');
      } else {
        await releaseIdempotencyKey(deps.db, claim.accountId, claim.key, claim.claimId);
      }
    } catch (err) {
      // The answer still goes out; the key stays claimed until its lock runs out. The database
      // being away is the dependency monitor's to log, once a minute, not each request's.
      if (!isDependencyUnavailable(err))
        request.log.error({ err: (err as Error).message }, 'could not record the idempotency key');
    }
    return payload;
  });

  // A request that ended without an answer passing onSend (the connection dropped) frees its key.
  app.addHook('onResponse', async (request) => {
    const claim = request.idempotency;
    if (!claim || claim.settled) return;
    claim.settled = true;
    await releaseIdempotencyKey(deps.db, claim.accountId, claim.key, claim.claimId).catch(() => undefined);
  });

  let timer: NodeJS.Timeout | undefined;
  const sweep = () =>
    sweepIdempotencyKeys(deps.db, new Date()).catch((err: Error) => {
      if (!isDependencyUnavailable(err)) app.log.error({ err: err.message }, 'idempotency key sweep failed');
    });
  app.addHook('onReady', async () => {
    if (deps.soleProcess) {
      await releaseRunningIdempotencyKeys(deps.db).catch((err: Error) =>
        app.log.error({ err: err.message }, 'could not free the idempotency claims of the previous run'),
      );
    }
    await sweep();
    timer = setInterval(sweep, SWEEP_INTERVAL_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => clearInterval(timer));
}

/**
 * SHA-256 of method, path and body. A JSON body is hashed in a canonical form (sorted keys, no
 * spacing), so a retry that re-serialises the same object matches. A streamed body (multipart) is
 * not read before the handler, so it is represented by its media type and length: the multipart
 * boundary, which a client may change between retries, is not part of it.
 */
export function fingerprint(request: FastifyRequest): string {
  const [path = ''] = request.url.split('?', 1);
  const hash = createHash('sha256').update(`${request.method}\n${path}\n`);
  const type = String(request.headers['content-type'] ?? '')
    .split(';', 1)[0]!
    .trim()
    .toLowerCase();
  if (type === 'multipart/form-data') hash.update(`multipart\n${request.headers['content-length'] ?? ''}`);
  else hash.update(`json\n${canonicalJson(request.body)}`);
  return hash.digest('hex');
}

/** JSON with object keys sorted; depth is bounded by the body parser (MAX_JSON_DEPTH), so recursion is safe. */
export function canonicalJson(value: unknown): string {
  if (value === undefined) return '';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v ?? null)).join(',')}]`;
  const entries = Object.keys(value)
    .sort()
    .map((k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k] ?? null)}`);
  return `{${entries.join(',')}}`;
}

function isStorable(status: number, payload: string): boolean {
  if (status >= 200 && status < 300) return true;
  if (status < 400 || status >= 500) return false;
  try {
    const code = (JSON.parse(payload) as { error?: { code?: ErrorCode } }).error?.code;
    return code !== undefined && DETERMINISTIC_CODES.has(code);
  } catch {
    return false;
  }
}

/** An answer given without reading a streamed body: close the connection rather than drain it. */
function leaveBodyUnread(request: FastifyRequest, reply: FastifyReply): void {
  if (request.body === undefined && Number(request.headers['content-length'] ?? 0) > 0) {
    reply.header('Connection', 'close');
  }
}
