import { afterEach, describe, expect, test } from 'vitest';
import { sql, type Kysely } from 'kysely';
import { dialects, freshDatabase, type TestDatabase } from './helpers/db.ts';
import { migrate, migrations } from '../src/store/db.ts';
import { applyMigrations, FIRST_RELEASE_LAST_MIGRATION } from '../src/store/migrator.ts';
import type { Db } from '../src/store/schema.ts';

/**
 * Issue 40, upgrades that mix: where migrations are recorded, and a release running on a database a
 * newer release migrated (a rolling upgrade, a rollback). test/rolling-upgrade.test.ts runs the
 * previous release's own code on it.
 */
describe.each(dialects)('migrations (%s)', (dialect) => {
  let t: TestDatabase | undefined;
  afterEach(async () => {
    await t?.destroy();
    t = undefined;
  });
  const opts = () => (t?.schema ? { schema: t.schema } : {});

  const recorded = async (db: Db, table: string, schema?: string) => {
    const { rows } = await sql<{
      name: string;
    }>`select name from ${sql.table(schema ? `${schema}.${table}` : table)}`.execute(db);
    return rows.map((r) => r.name).sort();
  };

  test('the first release’s ten stay in Kysely’s table, every later one in stemforge_migration', async () => {
    t = await freshDatabase(dialect);
    const names = Object.keys(migrations).sort();
    const first = names.filter((n) => n <= FIRST_RELEASE_LAST_MIGRATION);
    expect(first).toHaveLength(10);
    expect(await recorded(t.db, 'kysely_migration', t.schema)).toEqual(first);
    expect(await recorded(t.db, 'stemforge_migration', t.schema)).toEqual(names.filter((n) => !first.includes(n)));
  });

  test('a database as v0.1.0 left it is migrated on from there', async () => {
    t = await freshDatabase(dialect, FIRST_RELEASE_LAST_MIGRATION);
    expect(await recorded(t.db, 'kysely_migration', t.schema)).toHaveLength(10);
    await migrate(t, opts());
    const columns = (await t.db.introspection.getTables())
      .find((x) => x.name === 'jobs' && x.schema === t?.schema)!
      .columns.map((c) => c.name);
    expect(columns).toEqual(expect.arrayContaining(['work_kept', 'kept_at_crash', 'stalled_crashes']));
    // Again: nothing pending, nothing newer.
    expect(await migrate(t, opts())).toEqual({ newer: [] });
  });

  test('migrations of a newer release are tolerated and named; an unknown older one is refused', async () => {
    t = await freshDatabase(dialect);
    const future = {
      '999-future': {
        up: async (db: Kysely<unknown>) => {
          await db.schema.alterTable('jobs').addColumn('future_column', 'text').execute();
        },
      },
    };
    // The newer release migrates...
    expect(await applyMigrations(t.db, { ...migrations, ...future }, opts())).toEqual({ newer: [] });
    // ...and this one starts on its database, running nothing.
    expect(await migrate(t, opts())).toEqual({ newer: ['999-future'] });
    expect(await recorded(t.db, 'stemforge_migration', t.schema)).toContain('999-future');

    // A name this release should know but does not (a branch's migration) is real corruption.
    const table = sql.table(t.schema ? `${t.schema}.stemforge_migration` : 'stemforge_migration');
    await sql`insert into ${table} (name, timestamp) values ('011-a-branch', ${new Date().toISOString()})`.execute(
      t.db,
    );
    await expect(migrate(t, opts())).rejects.toThrow(/011-a-branch is missing/);
  });
});
