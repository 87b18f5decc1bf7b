import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { Kysely, PostgresDialect, SqliteDialect, sql, type Migration } from 'kysely';
import { applyMigrations, type MigrateOptions, type MigrateResult } from './migrator.ts';
import type { Database, Db } from './schema.ts';
import * as m001 from './migrations/001-platform.ts';
import * as m002 from './migrations/002-jobs.ts';
import * as m003 from './migrations/003-webhooks.ts';
import * as m004 from './migrations/004-worker-models.ts';
import * as m005 from './migrations/005-hosted-compat.ts';
import * as m006 from './migrations/006-dashboard.ts';
import * as m007 from './migrations/007-idempotency-keys.ts';
import * as m008 from './migrations/008-job-names.ts';
import * as m009 from './migrations/009-admin.ts';
import * as m010 from './migrations/010-crash-accounting.ts';
import * as m011 from './migrations/011-kept-work.ts';

export type DialectName = 'sqlite' | 'postgres';

export interface DatabaseHandle {
  db: Db;
  dialect: DialectName;
  close(): Promise<void>;
  /** Set by `connectDatabase`: migrations a newer release applied, which this one does not know. */
  newerMigrations?: string[];
}

/**
 * Migrations in order; each is written once for both dialects with Kysely's schema builder, and adds
 * only (CONTRIBUTING.md, "Add a migration"). `migrator.ts` says where each is recorded.
 */
export const migrations: Record<string, Migration> = {
  '001-platform': m001,
  '002-jobs': m002,
  '003-webhooks': m003,
  '004-worker-models': m004,
  '005-hosted-compat': m005,
  '006-dashboard': m006,
  '007-idempotency-keys': m007,
  '008-job-names': m008,
  '009-admin': m009,
  '010-crash-accounting': m010,
  '011-kept-work': m011,
};

export interface OpenOptions {
  /** PostgreSQL only: schema to use (created if missing); lets tests run in isolation. */
  schema?: string;
}

/** Opens the database named by a `sqlite:<path>` or `postgres://` URL. */
export function openDatabase(url: string, opts: OpenOptions = {}): DatabaseHandle {
  if (url.startsWith('sqlite:')) {
    const path = url.slice('sqlite:'.length);
    if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
    const sqlite = new BetterSqlite3(path);
    sqlite.pragma('journal_mode = WAL');
    sqlite.pragma('busy_timeout = 5000');
    sqlite.pragma('foreign_keys = ON');
    sqlite.pragma('synchronous = NORMAL');
    const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: sqlite }) });
    return { db, dialect: 'sqlite', close: () => db.destroy() };
  }
  const pool = new pg.Pool({
    connectionString: url,
    max: 10,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  const db = new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
  return { db, dialect: 'postgres', close: () => db.destroy() };
}

/**
 * Applies the migrations not yet applied, all of them or (`upTo`, tests of a migration) up to one;
 * throws with the failing migration's name. Names the migrations a newer release applied.
 */
export async function migrate(handle: DatabaseHandle, opts: MigrateOptions = {}): Promise<MigrateResult> {
  if (handle.dialect === 'postgres' && opts.schema) {
    await handle.db.schema.createSchema(opts.schema).ifNotExists().execute();
  }
  return applyMigrations(handle.db, migrations, opts);
}

/** Opens and migrates in one step. */
export async function connectDatabase(url: string, opts: OpenOptions = {}): Promise<DatabaseHandle> {
  const handle = openDatabase(url, opts);
  try {
    const { newer } = await migrate(handle, opts);
    return { ...handle, newerMigrations: newer };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

/** Readiness: one round trip to the database. */
export async function pingDatabase(db: Db): Promise<void> {
  await sql`select 1`.execute(db);
}
