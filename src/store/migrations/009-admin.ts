import { sql, type Kysely } from 'kysely';

/**
 * The operator's admin API (issue 30): admin accounts and disabled accounts. The oldest account of
 * an existing install becomes its admin, as the first account of a new one does.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .alterTable('accounts')
    .addColumn('is_admin', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  // Set when an admin disables the account: its keys and sessions are refused, it cannot sign in.
  await db.schema.alterTable('accounts').addColumn('disabled_at', 'text').execute();
  // The admin list pages through accounts oldest first.
  await db.schema.createIndex('accounts_created').on('accounts').columns(['created_at', 'id']).execute();
  await sql`update accounts set is_admin = 1
            where id = (select id from accounts order by created_at, id limit 1)`.execute(db);
}
