import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { connectDatabase, type DatabaseHandle } from '../../src/store/db.ts';

/** PostgreSQL used by tests: this machine kind runs one on 127.0.0.1:5432 (database `test`, trust auth). */
export const TEST_POSTGRES_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

export interface TestDatabase extends DatabaseHandle {
  url: string;
  schema?: string;
  /** Closes the handle and drops the test's PostgreSQL schema. */
  destroy(): Promise<void>;
}

/** A fresh, migrated database of the given dialect: a temp SQLite file, or a new PostgreSQL schema. */
export async function freshDatabase(dialect: 'sqlite' | 'postgres'): Promise<TestDatabase> {
  if (dialect === 'sqlite') {
    const url = `sqlite:${join(mkdtempSync(join(tmpdir(), 'stemforge-db-')), 'test.db')}`;
    const handle = await connectDatabase(url);
    return { ...handle, url, destroy: handle.close };
  }
  const schema = `t_${randomBytes(6).toString('hex')}`;
  const handle = await connectDatabase(TEST_POSTGRES_URL, { schema });
  return {
    ...handle,
    url: TEST_POSTGRES_URL,
    schema,
    async destroy() {
      await handle.close();
      const client = new pg.Client({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    },
  };
}

export const dialects = ['sqlite', 'postgres'] as const;
