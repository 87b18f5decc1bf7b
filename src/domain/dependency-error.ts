/** The services a deployment depends on that can be away while the process lives on. */
export type Dependency = 'database' | 'redis' | 'storage';

/** How each is named in a message, for an operator or a client. */
export const DEPENDENCY_LABELS: Record<Dependency, string> = {
  database: 'the database',
  redis: 'Redis (the job queue)',
  storage: 'the file storage',
};

/**
 * A dependency did not answer (refused, cut, or silent past DEPENDENCY_TIMEOUT_SECONDS). Adapters
 * throw it for their own connection failures, never for an answer they got (a constraint, a missing
 * object): the API answers it 503 SERVICE_UNAVAILABLE with Retry-After (`src/http/error-table.ts`).
 * Its message names the dependency and the cause's code only: no address or credential.
 */
export class DependencyUnavailableError extends Error {
  constructor(
    readonly dependency: Dependency,
    readonly reason: string,
    options?: { cause?: unknown },
  ) {
    super(`${DEPENDENCY_LABELS[dependency]} is unreachable (${reason})`, options);
  }
}

export function isDependencyUnavailable(err: unknown): err is DependencyUnavailableError {
  return err instanceof DependencyUnavailableError;
}
