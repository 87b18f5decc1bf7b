import { DependencyUnavailableError, type Dependency } from '../domain/dependency-error.ts';

/** Socket errors that mean the peer could not be reached or went away mid-request. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
]);

/**
 * Why a client library's error means "could not talk to it" (a socket code, a timeout), or null
 * when the service itself answered (a refused query, a missing key): only the first is a 503.
 */
export function networkFailure(err: unknown): string | null {
  const e = err as { code?: unknown; name?: unknown; errors?: unknown[]; cause?: unknown } | undefined;
  if (typeof e?.code === 'string' && NETWORK_CODES.has(e.code)) return e.code;
  // Node tries every address of a name (happy eyeballs) and reports them together.
  if (Array.isArray(e?.errors)) return e.errors.map(networkFailure).find((r) => r !== null) ?? null;
  if (e?.name === 'TimeoutError') return 'timed out';
  return e?.cause && e.cause !== err ? networkFailure(e.cause) : null;
}

/**
 * `promise`, or a DependencyUnavailableError once `ms` have passed without it settling. The work
 * itself is not stopped (the caller's adapter decides what to do with a late result).
 */
export function withDeadline<T>(promise: Promise<T>, ms: number, dependency: Dependency): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DependencyUnavailableError(dependency, `no answer within ${ms / 1000} s`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** ioredis's own words for a command that could not be sent or answered. */
const REDIS_LOST = /Connection is closed|Stream isn't writeable|max retries per request|Socket closed unexpectedly/i;

/** Why an ioredis (or BullMQ) error means Redis could not be talked to, or null for an answer it gave. */
export function redisFailure(err: unknown): string | null {
  if (err instanceof DependencyUnavailableError) return err.reason;
  const network = networkFailure(err);
  if (network) return network;
  return REDIS_LOST.test(String((err as { message?: unknown } | undefined)?.message)) ? 'connection lost' : null;
}

/**
 * Maps a failure of `dependency` for the caller: a connection failure (as `failure` reads it) is
 * reported and becomes a DependencyUnavailableError; any other error is returned as it is.
 */
export function unavailableOr(
  dependency: Dependency,
  failure: (err: unknown) => string | null,
  report: (err: unknown) => void,
): (err: unknown) => unknown {
  return (err) => {
    const reason = failure(err);
    if (reason === null) return err;
    report(err);
    return err instanceof DependencyUnavailableError
      ? err
      : new DependencyUnavailableError(dependency, reason, { cause: err });
  };
}
