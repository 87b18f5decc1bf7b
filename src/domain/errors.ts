/**
 * The one error catalog. Every error the API answers is a code from this table with its HTTP
 * status and default message; `src/http/error-handler.ts` maps it to the contract's body
 * `{"error": {"code", "message"}}`. Codes marked "contract" are named by the API specification;
 * the others are Stemforge's choices for what the specification leaves open (see docs/errors.md).
 */
export const errorCatalog = {
  // contract
  MISSING_API_KEY: {
    status: 401,
    message: 'The Authorization header is missing. Send "Authorization: Bearer <API key>".',
  },
  INVALID_API_KEY: { status: 401, message: 'The API key is unknown or malformed.' },
  API_KEY_REVOKED: { status: 403, message: 'The API key has been revoked.' },
  INSUFFICIENT_CREDITS: { status: 402, message: 'Your balance does not cover this job.' },
  RATE_LIMIT_EXCEEDED: { status: 429, message: 'Too many requests; retry after the time given in Retry-After.' },
  FILE_TOO_LARGE: { status: 400, message: 'The file exceeds the maximum file size.' },
  AUDIO_TOO_LONG: { status: 400, message: 'The audio exceeds the maximum duration.' },
  AUDIO_TOO_SHORT: { status: 400, message: 'The audio is shorter than the minimum duration.' },
  UNSUPPORTED_FORMAT: { status: 400, message: 'The file format is not supported.' },
  JOB_NOT_FOUND: { status: 404, message: 'Job not found.' },
  TRACK_NOT_FOUND: { status: 404, message: 'The track is private or unavailable.' },
  // request shape
  INVALID_JSON: { status: 400, message: 'The request body is not valid JSON.' },
  VALIDATION_ERROR: { status: 400, message: 'A field is missing or invalid.' },
  MISSING_INPUT: { status: 400, message: 'Send exactly one of uploadKey or sourceUrl.' },
  CONFLICTING_INPUT: { status: 400, message: 'Send only one of uploadKey or sourceUrl, not both.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, message: 'The request Content-Type is not supported by this route.' },
  REQUEST_TOO_LARGE: { status: 413, message: 'The request body is too large.' },
  MALFORMED_REQUEST: {
    status: 400,
    message: 'The request is not valid HTTP: its request line or a header holds bytes HTTP does not allow.',
  },
  HEADERS_TOO_LARGE: { status: 431, message: 'The request headers are too large.' },
  URI_TOO_LONG: { status: 414, message: 'The request URL is too long.' },
  EXPECTATION_FAILED: {
    status: 417,
    message: 'The Expect header names an expectation this server does not meet; only 100-continue is understood.',
  },
  HTTP_VERSION_NOT_SUPPORTED: { status: 505, message: 'This server speaks HTTP/1.1 (and HTTP/1.0) only.' },
  REQUEST_TIMEOUT: { status: 408, message: 'The request did not arrive in time.' },
  NOT_FOUND: { status: 404, message: 'No such route.' },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    message: 'This Idempotency-Key was used with a different request; use a new key for a new request.',
  },
  IDEMPOTENCY_KEY_IN_PROGRESS: {
    status: 409,
    message: 'A request with this Idempotency-Key is still being processed; retry shortly.',
  },
  // uploads and files
  UPLOAD_NOT_FOUND: {
    status: 400,
    message: 'The upload key is unknown, belongs to another account, or has no uploaded file.',
  },
  UPLOAD_URL_EXPIRED: { status: 403, message: 'The upload URL has expired; request a new grant from POST /upload.' },
  INVALID_SIGNATURE: { status: 403, message: 'The URL signature is invalid.' },
  DOWNLOAD_URL_EXPIRED: { status: 403, message: 'The download URL has expired; fetch the job again for a fresh one.' },
  CONTENT_TYPE_MISMATCH: { status: 415, message: 'The Content-Type does not match the one granted for this upload.' },
  UPLOAD_ALREADY_COMPLETED: { status: 409, message: 'A file has already been uploaded with this grant.' },
  AUDIO_NOT_DECODABLE: {
    status: 400,
    message: 'The file reads as audio, but its audio could not be decoded, so its length cannot be measured.',
  },
  FILE_NOT_FOUND: { status: 404, message: 'File not found.' },
  RANGE_NOT_SATISFIABLE: { status: 416, message: 'The requested range is not satisfiable.' },
  // remote sources
  URL_NOT_ALLOWED: { status: 400, message: 'The URL is not allowed: only public http(s) addresses can be fetched.' },
  SOURCE_FETCH_FAILED: { status: 400, message: 'The source URL could not be fetched.' },
  INVALID_VIDEO_URL: { status: 400, message: 'The video address is not in an accepted form.' },
  INVALID_TRACK_URL: { status: 400, message: 'The track address is not in an accepted form.' },
  VIDEO_NOT_FOUND: { status: 404, message: 'The video is private or unavailable.' },
  VIDEO_DURATION_UNKNOWN: {
    status: 400,
    message: 'The video site does not report the duration, so the cost cannot be known before downloading.',
  },
  // accounts, keys, webhooks, models
  API_KEY_LIMIT_REACHED: { status: 409, message: 'This account already has the maximum number of active API keys.' },
  WEBHOOK_LIMIT_REACHED: { status: 409, message: 'This account already has the maximum number of webhooks.' },
  WEBHOOK_NOT_FOUND: { status: 404, message: 'Webhook not found.' },
  MODEL_NOT_INSTALLED: { status: 400, message: 'The model this request needs is not installed on this server.' },
  JOB_NOT_COMPLETED: { status: 409, message: 'The job has not completed yet.' },
  JOB_NOT_CANCELLABLE: { status: 409, message: 'Only a pending or processing job can be cancelled.' },
  JOB_STILL_RUNNING: { status: 409, message: 'The job is still pending or processing; cancel it before deleting it.' },
  OUTPUT_EXPIRED: { status: 410, message: 'The job outputs have expired.' },
  KEEP_LIMIT_EXCEEDED: {
    status: 409,
    message:
      'Keeping this job would take your kept files past the limit this server sets; un-keep or delete another first.',
  },
  // dashboard (docs/dashboard.md)
  INVALID_CREDENTIALS: { status: 401, message: 'The email or the password is wrong.' },
  NOT_SIGNED_IN: { status: 401, message: 'Sign in to the dashboard first.' },
  CSRF_TOKEN_INVALID: {
    status: 403,
    message: 'The request lacks a valid X-CSRF-Token header or comes from another site; reload the page.',
  },
  // admin API (docs/admin.md)
  ADMIN_REQUIRED: { status: 403, message: 'This route is for admin accounts only.' },
  ACCOUNT_DISABLED: { status: 403, message: 'This account has been disabled by an admin.' },
  ACCOUNT_NOT_FOUND: { status: 404, message: 'Account not found.' },
  EMAIL_TAKEN: { status: 409, message: 'An account with this email already exists.' },
  CANNOT_DISABLE_SELF: {
    status: 409,
    message: 'An admin cannot disable their own account; another admin can.',
  },
  // operations
  METRICS_TOKEN_INVALID: {
    status: 401,
    message: 'The metrics need "Authorization: Bearer <METRICS_TOKEN>" with the token this server was started with.',
  },
  // server side
  INTERNAL_ERROR: { status: 500, message: 'An internal error occurred.' },
  SERVICE_UNAVAILABLE: { status: 503, message: 'The service is not ready.' },
} as const satisfies Record<string, { status: number; message: string }>;

export type ErrorCode = keyof typeof errorCatalog;

/** An API error: a catalog code, an optional specific message, and extra fields for the body. */
export class ApiError extends Error {
  readonly status: number;

  constructor(
    readonly code: ErrorCode,
    message?: string,
    readonly extra: Record<string, unknown> = {},
    readonly headers: Record<string, string> = {},
  ) {
    super(message ?? errorCatalog[code].message);
    this.status = errorCatalog[code].status;
  }

  toBody(): { error: { code: ErrorCode; message: string } & Record<string, unknown> } {
    return { error: { code: this.code, message: this.message, ...this.extra } };
  }
}
