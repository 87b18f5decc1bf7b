import { Migrator, sql, type Migration } from 'kysely';
import type { Db } from './schema.ts';

/**
 * How migrations are recorded, so that two releases can run on one database (docs/upgrades.md).
 *
 * - v0.1.0 records its migrations (001-010) in Kysely's default table and refuses to start when that
 *   table names one it does not know ("corrupted migrations: previously executed migration ... is
 *   missing"). Those ten stay recorded there, and nothing newer is ever added to it, so v0.1.0 still
 *   starts on a database a later release migrated (a restarted old pod, a rollback).
 * - Every later migration is recorded in `stemforge_migration`, read by a release that tolerates
 *   names newer than its own: it runs beside the release after it (migrations are expand-only within
 *   a release: CONTRIBUTING.md, "Add a migration").
 */
export const FIRST_RELEASE_LAST_MIGRATION = '010-crash-accounting';
const FIRST_RELEASE_TABLE = 'kysely_migration';
const FIRST_RELEASE_LOCK_TABLE = 'kysely_migration_lock';
const TABLE = 'stemforge_migration';
const LOCK_TABLE = 'stemforge_migration_lock';

export interface MigrateOptions {
  /** PostgreSQL: the schema holding the tables and the bookkeeping. */
  schema?: string;
  /** Stops after this migration (tests of a migration, a database as an older install left it). */
  upTo?: string;
}

export interface MigrateResult {
  /** Migrations the database has that this release does not know: a newer release ran them. */
  newer: string[];
}

/** Applies the migrations not yet applied, each recorded in its release's table. */
export async function applyMigrations(
  db: Db,
  migrations: Record<string, Migration>,
  opts: MigrateOptions = {},
): Promise<MigrateResult> {
  const names = Object.keys(migrations).sort();
  if (opts.upTo !== undefined && !names.includes(opts.upTo)) throw new Error(`no migration named ${opts.upTo}`);
  const first = names.filter((n) => n <= FIRST_RELEASE_LAST_MIGRATION);
  const later = names.filter((n) => n > FIRST_RELEASE_LAST_MIGRATION);
  const pick = (list: string[]) => Object.fromEntries(list.map((n) => [n, migrations[n]!]));
  const newer = await runMigrator(db, pick(first), FIRST_RELEASE_TABLE, FIRST_RELEASE_LOCK_TABLE, opts);
  if (opts.upTo !== undefined && opts.upTo <= FIRST_RELEASE_LAST_MIGRATION) return { newer };
  return { newer: [...newer, ...(await runMigrator(db, pick(later), TABLE, LOCK_TABLE, opts))] };
}

async function runMigrator(
  db: Db,
  known: Record<string, Migration>,
  table: string,
  lockTable: string,
  opts: MigrateOptions,
): Promise<string[]> {
  const last = Object.keys(known).sort().at(-1) ?? '';
  // Read before the migrator takes its lock (SQLite has one connection): a release that starts at
  // the same moment as a newer one migrating may miss that name and fail once; its restart succeeds.
  const newer = (await executedNames(db, table, opts.schema)).filter((n) => !(n in known) && n > last);
  // Recorded already, so never run: they only tell Kysely's migrator that the names are expected.
  const placeholders = Object.fromEntries(newer.map((n) => [n, { up: async () => undefined }]));
  const migrator = new Migrator({
    db,
    provider: { getMigrations: async () => ({ ...known, ...placeholders }) },
    migrationTableName: table,
    migrationLockTableName: lockTable,
    // Kysely looks for its bookkeeping tables across schemas unless told which one to use.
    ...(opts.schema ? { migrationTableSchema: opts.schema } : {}),
  });
  const upTo = opts.upTo !== undefined && opts.upTo in known ? opts.upTo : undefined;
  const { error, results } = await (upTo ? migrator.migrateTo(upTo) : migrator.migrateToLatest());
  if (error) {
    const failed = results?.find((r) => r.status === 'Error')?.migrationName;
    // No migration ran: the database itself failed (unreachable, refused); the caller names it.
    if (failed === undefined) throw error;
    throw new Error(`database migration ${failed} failed: ${(error as Error).message ?? error}`, { cause: error });
  }
  return newer;
}

/** The migrations a table records, none when it does not exist yet (or cannot be read: the migrator then says why). */
async function executedNames(db: Db, table: string, schema: string | undefined): Promise<string[]> {
  try {
    const { rows } = await sql<{
      name: string;
    }>`select name from ${sql.table(schema ? `${schema}.${table}` : table)}`.execute(db);
    return rows.map((r) => r.name);
  } catch {
    return [];
  }
}
