import { ApiError, type ErrorCode } from '../domain/errors.ts';

/** Why a remote fetch failed; `retryable` tells a job pipeline whether another attempt may help. */
export type FetchFailure =
  | 'not-allowed' // URL shape or address refused by the guard
  | 'http-status' // the server answered a non-2xx status
  | 'too-many-redirects'
  | 'bad-redirect' // 3xx without a usable Location
  | 'timeout'
  | 'network' // DNS failure, refused, reset
  | 'truncated' // the connection closed before Content-Length bytes arrived
  | 'too-large'
  | 'aborted'; // the caller's AbortSignal fired

const RETRYABLE: ReadonlySet<FetchFailure> = new Set(['timeout', 'network', 'truncated']);

/**
 * A typed fetch failure that is also an ApiError, so a route can let it propagate: the error
 * handler answers its catalog code (URL_NOT_ALLOWED, SOURCE_FETCH_FAILED, FILE_TOO_LARGE) and message.
 */
export class SourceFetchError extends ApiError {
  readonly retryable: boolean;
  /** The remote server's status for `http-status` failures. */
  readonly httpStatus: number | null;

  constructor(
    code: Extract<ErrorCode, 'URL_NOT_ALLOWED' | 'SOURCE_FETCH_FAILED' | 'FILE_TOO_LARGE'>,
    message: string,
    readonly reason: FetchFailure,
    options: { retryable?: boolean; httpStatus?: number } = {},
  ) {
    super(code, message);
    this.name = 'SourceFetchError';
    this.retryable = options.retryable ?? RETRYABLE.has(reason);
    this.httpStatus = options.httpStatus ?? null;
  }
}
