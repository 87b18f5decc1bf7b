import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { migrate, openDatabase, type DatabaseHandle } from '../../src/store/db.ts';

/** PostgreSQL used by tests: this machine kind runs one on 127.0.0.1:5432 (database `test`, trust auth). */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends DatabaseHandle {
  url: string;
  schema?: string;
  /** Closes the handle and drops the test's PostgreSQL schema. */
  destroy(): Promise<void>;
}

/**
 * A fresh, migrated database of the given dialect: a temp SQLite file, or a new PostgreSQL schema.
 * `upTo` stops at that migration, as an install of an older version left its database.
 */
export async function freshDatabase(dialect: 'sqlite' | 'postgres', upTo?: string): Promise<TestDatabase> {
  const schema = dialect === 'postgres' ? `t_${randomBytes(6).toString('hex')}` : undefined;
  const url = schema ? TEST_POSTGRES_URL : `sqlite:${join(mkdtempSync(join(tmpdir(), 'stemforge-db-')), 'test.db')}`;
  const handle = openDatabase(url, schema ? { schema } : {});
  const dropSchema = async () => {
    if (!schema) return;
    const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
  };
  try {
    await migrate(handle, { ...(schema ? { schema } : {}), ...(upTo ? { upTo } : {}) });
  } catch (err) {
    await handle.close();
    await dropSchema();
    throw err;
  }
  return {
    ...handle,
    url,
    ...(schema ? { schema } : {}),
    async destroy() {
      await handle.close();
      await dropSchema();
    },
  };
}

export const dialects = ['sqlite', 'postgres'] as const;
