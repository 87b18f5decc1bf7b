import type { Config } from '../config.ts';
import type { Runtime } from '../runtime.ts';
import { isDependencyUnavailable } from '../domain/dependency-error.ts';
import { postgresFailure } from '../store/bounded-pool.ts';
import { BucketUnusableError } from '../storage/errors.ts';
import { redisFailure } from '../dependencies/unavailable.ts';

/**
 * What a start needs from outside before it takes a request or a job: each dependency answers
 * within DEPENDENCY_TIMEOUT_SECONDS, or the start stops with a line naming the setting to look at
 * and the cause (so a supervisor restarting it shows the reason, and it never hangs).
 */
export async function checkDependencies(
  rt: Pick<Runtime, 'config' | 'blobs' | 'queue' | 'rateLimiter'>,
): Promise<void> {
  const { config } = rt;
  await rt.blobs.probe?.().catch((err: unknown) => {
    throw storageStartError(config, err);
  });
  const redis = (err: unknown) => {
    throw redisStartError(config, err);
  };
  await rt.queue.probe?.().catch(redis);
  await rt.rateLimiter.probe?.().catch(redis);
}

/** A failure to open the database at start, naming DATABASE_URL (its host, never its password). */
export function databaseStartError(config: Pick<Config, 'databaseUrl'>, err: unknown): Error {
  if (!config.databaseUrl.startsWith('postgres')) return err as Error;
  const where = `PostgreSQL at ${hostOf(config.databaseUrl, 5432)}`;
  const reason = postgresFailure(err);
  if (reason !== null) return startError(`DATABASE_URL: ${where} is not reachable (${reason})`, err);
  // The server answered: a password refused, a database that does not exist, a migration that failed.
  const message = (err as Error).message;
  if (/^database migration/.test(message)) return err as Error;
  return startError(`DATABASE_URL: ${where} refused the connection: ${message}`, err);
}

function redisStartError(config: Pick<Config, 'deployment'>, err: unknown): Error {
  const url = config.deployment.mode === 'scale-out' ? config.deployment.redisUrl : '';
  const where = `Redis at ${hostOf(url, 6379)}`;
  const reason = redisFailure(err);
  if (reason !== null) return startError(`REDIS_URL: ${where} is not reachable (${reason})`, err);
  return startError(`REDIS_URL: ${where} refused: ${(err as Error).message}`, err);
}

function storageStartError(config: Pick<Config, 'storage'>, err: unknown): Error {
  if (config.storage.kind !== 's3') return err as Error;
  const { bucket, endpoint } = config.storage;
  const store = endpoint ? `the S3 store at ${hostOf(endpoint, 443)}` : 'AWS S3';
  if (err instanceof BucketUnusableError && err.reason === 'missing') {
    return startError(`S3_BUCKET: ${store} has no bucket ${bucket}: create it, or name an existing one`, err);
  }
  if (err instanceof BucketUnusableError) {
    return startError(
      `S3_ACCESS_KEY_ID/S3_SECRET_ACCESS_KEY: ${store} denies access to the bucket ${bucket} with these credentials`,
      err,
    );
  }
  if (isDependencyUnavailable(err)) {
    const setting = endpoint ? 'S3_ENDPOINT' : 'S3_REGION';
    return startError(`${setting}: ${store} is not reachable (${err.reason})`, err);
  }
  return startError(`S3_ENDPOINT: ${store} answered the bucket check with an error: ${(err as Error).message}`, err);
}

/** host:port of a URL, for a message: never its credentials or path. */
function hostOf(url: string, defaultPort: number): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || defaultPort}`;
  } catch {
    return 'the configured address';
  }
}

function startError(message: string, cause: unknown): Error {
  return new Error(message, { cause });
}
