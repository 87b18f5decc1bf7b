import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { DependencyUnavailableError } from '../domain/dependency-error.ts';
import { networkFailure, unavailableOr, withDeadline } from '../dependencies/unavailable.ts';

/** SQLSTATEs of a server that is going away or full, not of a query it refused. */
const UNAVAILABLE_STATES: Record<string, string> = {
  '57P01': 'the server is shutting down',
  '57P02': 'the server crashed',
  '57P03': 'the server is starting up',
  '53300': 'too many connections',
};

/** node-postgres's own words for a connection that failed or went away. */
const LOST = /Connection terminated|timeout exceeded when trying to connect|not queryable|Connection is closed/i;

/** Why a node-postgres error means PostgreSQL could not be talked to, or null for an answer it gave. */
export function postgresFailure(err: unknown): string | null {
  if (err instanceof DependencyUnavailableError) return err.reason;
  const code = (err as { code?: unknown } | undefined)?.code;
  if (typeof code === 'string' && (code.startsWith('08') || code in UNAVAILABLE_STATES)) {
    return UNAVAILABLE_STATES[code] ?? `connection failure ${code}`;
  }
  const network = networkFailure(err);
  if (network) return network;
  return LOST.test(String((err as { message?: unknown } | undefined)?.message)) ? 'connection lost' : null;
}

/**
 * The pg pool as Kysely sees it, with every wait bounded: a connect (the pool's own
 * connectionTimeoutMillis) and each query (`timeoutMs`). A connection failure becomes a
 * DependencyUnavailableError (reported to `report`), and the client it happened on is destroyed
 * rather than returned to the pool, so a query cut by the deadline cannot hold up the next one.
 */
export function boundedPool(pool: pg.Pool, timeoutMs: number, report: (err: unknown) => void): PostgresPool {
  const unavailable = unavailableOr('database', postgresFailure, report);
  return {
    async connect(): Promise<PostgresPoolClient> {
      let client: pg.PoolClient;
      try {
        client = await pool.connect();
      } catch (err) {
        throw unavailable(err);
      }
      let broken: Error | undefined;
      const query = (sql: string, parameters: ReadonlyArray<unknown>) =>
        withDeadline(client.query(sql, parameters as unknown[]), timeoutMs, 'database').catch((err: unknown) => {
          const mapped = unavailable(err);
          if (mapped instanceof DependencyUnavailableError) broken = mapped;
          throw mapped;
        });
      return {
        // Kysely streams through a cursor only when one is configured; none is.
        query: query as unknown as PostgresPoolClient['query'],
        release: () => client.release(broken),
      };
    },
    end: () => pool.end(),
  };
}
