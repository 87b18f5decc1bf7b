import { ZodError } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { DEPENDENCY_LABELS, DependencyUnavailableError } from '../domain/dependency-error.ts';
import { BlobNotFoundError } from '../storage/errors.ts';
import { KeyLimitError, MAX_ACTIVE_KEYS } from '../store/api-keys.ts';
import { EmailTakenError } from '../store/accounts.ts';
import { ToolMissingError } from '../audio/tools.ts';
import { toolMissingError } from '../domain/tool-missing.ts';
import { BalanceLimitError, MAX_BALANCE_SECONDS } from '../store/credits.ts';
import { MAX_WEBHOOKS_PER_ACCOUNT, WebhookLimitError } from '../store/webhooks.ts';

type ErrorClass<E> = abstract new (...args: never[]) => E;

interface Entry<E extends Error> {
  error: ErrorClass<E>;
  /** The contract's answer: a catalog code (its status comes with it), a message and extra fields. */
  answer(err: E): ApiError;
  /** A line for the server's log when the answer is our fault, not the client's. */
  log?(err: E): string | undefined;
}

const entry = <E extends Error>(e: Entry<E>): Entry<Error> => e as unknown as Entry<Error>;

/** Retry-After of a 503 for a dependency away: about the time a driver takes to reconnect. */
export const DEPENDENCY_RETRY_AFTER_SECONDS = 5;

/**
 * The one table from the errors routes and services throw to the API's answers (codes and statuses
 * in `src/domain/errors.ts`). Routes and services throw; `error-handler.ts` looks the error up here,
 * first match wins. Lower layers keep their own error classes (the store and the blob store do not
 * know HTTP): this is where they meet the contract.
 */
const DOMAIN_ERRORS: readonly Entry<Error>[] = [
  entry({ error: ApiError, answer: (e) => e, log: (e) => (e.status >= 500 ? e.message : undefined) }),
  entry({
    error: KeyLimitError,
    answer: () =>
      new ApiError(
        'API_KEY_LIMIT_REACHED',
        `This account already has ${MAX_ACTIVE_KEYS} active API keys; revoke one first.`,
        { limit: MAX_ACTIVE_KEYS },
      ),
  }),
  entry({
    error: WebhookLimitError,
    answer: () =>
      new ApiError(
        'WEBHOOK_LIMIT_REACHED',
        `This account already has ${MAX_WEBHOOKS_PER_ACCOUNT} webhooks; delete one first.`,
        { limit: MAX_WEBHOOKS_PER_ACCOUNT },
      ),
  }),
  entry({
    error: BalanceLimitError,
    answer: () =>
      new ApiError('VALIDATION_ERROR', `This grant would take the balance above ${MAX_BALANCE_SECONDS} seconds.`, {
        field: 'seconds',
      }),
  }),
  // Two creations of one email race past the check: the unique index decides.
  entry({ error: EmailTakenError, answer: () => new ApiError('EMAIL_TAKEN') }),
  // A blob read that finds nothing: deleted since it was listed, or never there.
  entry({ error: BlobNotFoundError, answer: () => new ApiError('FILE_NOT_FOUND') }),
  // PostgreSQL, Redis or S3 away or silent past DEPENDENCY_TIMEOUT_SECONDS: nothing was done, try
  // again shortly. Not logged per request: the dependency monitor logs the outage once a minute.
  entry({
    error: DependencyUnavailableError,
    answer: (e) =>
      new ApiError(
        'SERVICE_UNAVAILABLE',
        `The service cannot reach ${DEPENDENCY_LABELS[e.dependency]} right now; retry after the seconds in Retry-After.`,
        {},
        { 'Retry-After': String(DEPENDENCY_RETRY_AFTER_SECONDS) },
      ),
  }),
  // ffmpeg or ffprobe is not installed: the server cannot take audio now, which is not the client's fault.
  entry({ error: ToolMissingError, answer: (e) => toolMissingError(e.tool), log: (e) => e.message }),
  // A response that does not match its schema is our bug, not the client's.
  entry({ error: ZodError, answer: () => new ApiError('INTERNAL_ERROR'), log: () => 'response failed its schema' }),
];

/** The answer to a thrown error the table knows, with what to log; undefined for any other error. */
export function answerOf(err: unknown): { answer: ApiError; log: string | undefined } | undefined {
  for (const e of DOMAIN_ERRORS) {
    if (err instanceof e.error) {
      const answer = e.answer(err);
      return { answer, log: e.log?.(err) };
    }
  }
  return undefined;
}
