import { networkFailure } from '../dependencies/unavailable.ts';

/** The HTTP status of an S3 error answer, when there was one. */
export function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

export function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || httpStatus(err) === 404;
}

/** The store does not implement the call (S3's `NotImplemented`, HTTP 501). */
export function isNotImplemented(err: unknown): boolean {
  return (err as { name?: string } | undefined)?.name === 'NotImplemented' || httpStatus(err) === 501;
}

/**
 * Why an S3 client error means the store could not be used now: no connection, no answer within
 * the deadline (the call was aborted), or the store's own 5xx (it is overloaded or failing). Null
 * for an answer about the request (missing key, denied access).
 */
export function s3Failure(err: unknown): string | null {
  const name = (err as { name?: string } | undefined)?.name;
  if (name === 'AbortError' || name === 'RequestAbortedError') return 'no answer in time';
  const status = httpStatus(err);
  if (status !== undefined && status >= 500 && status !== 501) return `HTTP ${status}`;
  return networkFailure(err);
}

/**
 * One call, abandoned when no answer has come within `timeoutMs` (for a read, its headers: the body
 * then streams as slowly as its reader takes it). A failure to reach the store goes through
 * `unavailable` (DependencyUnavailableError); `answered` sees the store's own answers (a missing
 * key) first.
 */
export async function callWithin<T, U = never>(
  timeoutMs: number,
  unavailable: (err: unknown) => unknown,
  send: (abortSignal: AbortSignal) => Promise<T>,
  answered?: (err: unknown) => U,
): Promise<T | U> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), timeoutMs);
  try {
    return await send(abort.signal);
  } catch (err) {
    if (answered && s3Failure(err) === null) return answered(err);
    throw unavailable(err);
  } finally {
    clearTimeout(timer);
  }
}
