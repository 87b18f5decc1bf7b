import { STORAGE_BACKENDS } from '../storage/backends.ts';
import type { EnvSettings } from './env.ts';

export class ConfigError extends Error {}

/**
 * How the processes of a deployment share work. `embedded`: one process runs the API and the
 * workers over its own database (SQLite by default; PostgreSQL is accepted for that one process),
 * an in-process queue and in-memory rate-limit counters. `scale-out`: any number of API and worker
 * processes share PostgreSQL, BullMQ on Redis, S3-compatible storage and one signing secret.
 */
export type Deployment = { mode: 'embedded' } | { mode: 'scale-out'; redisUrl: string };

/**
 * Whether node-postgres can read `url` (it parses with WHATWG URL, also trying an empty host, and
 * would otherwise fail at the first connect with a bare "Invalid URL"). The URL is never echoed: it
 * may hold a password.
 */
export function isParsablePostgresUrl(url: string): boolean {
  const encoded = /\s|%[^a-f0-9]|%[a-f0-9][^a-f0-9]/i.test(url) ? encodeURI(url).replace(/%25(\d\d)/g, '%$1') : url;
  return [encoded, encoded.replace('@/', '@localhost/')].some((u) => URL.canParse(u));
}

/**
 * Checks that the settings form one coherent deployment, naming everything missing at once. The
 * mode is never inferred from other variables: a forgotten REDIS_URL must not quietly turn a
 * fleet of processes into several "embedded" ones that release each other's job leases.
 */
export function parseDeployment(e: EnvSettings, databaseUrl: string): Deployment {
  if (e.STEMFORGE_MODE === 'embedded') {
    if (e.REDIS_URL) {
      throw new ConfigError(
        'invalid configuration: REDIS_URL is set but STEMFORGE_MODE is embedded (the default), which uses no Redis: ' +
          'set STEMFORGE_MODE=scale-out to run separate API and worker processes, or unset REDIS_URL',
      );
    }
    return { mode: 'embedded' };
  }
  const missing: string[] = [];
  if (!e.REDIS_URL) missing.push('REDIS_URL (the BullMQ queues and shared rate-limit counters)');
  if (!databaseUrl.startsWith('postgres')) missing.push("DATABASE_URL=postgres://... (SQLite is one machine's file)");
  const storage = STORAGE_BACKENDS[e.STORAGE];
  if (!storage.sharedBetweenProcesses) {
    const shared = Object.values(STORAGE_BACKENDS).filter((b) => b.sharedBetweenProcesses);
    missing.push(`${shared.map((b) => b.setting).join(' or ')} (${storage.description} is not shared between hosts)`);
  }
  if (!e.STEMFORGE_SIGNING_SECRET) {
    missing.push(
      'STEMFORGE_SIGNING_SECRET (the same value on every process, so any API process accepts the URLs another signed)',
    );
  }
  if (missing.length > 0 || !e.REDIS_URL) {
    throw new ConfigError(`invalid configuration: STEMFORGE_MODE=scale-out needs ${missing.join('; ')}`);
  }
  return { mode: 'scale-out', redisUrl: e.REDIS_URL };
}
