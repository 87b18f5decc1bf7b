import type { Kysely } from 'kysely';

/**
 * The dashboard (issue 13): a password on accounts, named API keys, server-side sessions, and the
 * duration of each webhook delivery (shown in the deliveries list).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  // scrypt hash in PHC-like text form; null for accounts that cannot sign in to the dashboard.
  await db.schema.alterTable('accounts').addColumn('password_hash', 'text').execute();
  await db.schema.alterTable('api_keys').addColumn('name', 'text').execute();
  await db.schema.alterTable('webhook_deliveries').addColumn('duration_ms', 'integer').execute();
  await db.schema
    .createTable('sessions')
    // SHA-256 of the cookie's token: a leaked table does not let anyone sign in.
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('csrf_token', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('last_seen_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sessions_account').on('sessions').column('account_id').execute();
  await db.schema.createIndex('sessions_expires').on('sessions').column('expires_at').execute();
  await db.schema.createIndex('jobs_account_created').on('jobs').columns(['account_id', 'created_at']).execute();
}
