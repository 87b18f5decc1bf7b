import type { Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('webhooks')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('url', 'text', (c) => c.notNull())
    .addColumn('events_json', 'text', (c) => c.notNull())
    .addColumn('secret', 'text', (c) => c.notNull())
    .addColumn('is_active', 'integer', (c) => c.notNull())
    .addColumn('fail_count', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .addColumn('last_called_at', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('deleted_at', 'text')
    .execute();
  await db.schema.createIndex('webhooks_account').on('webhooks').column('account_id').execute();
  await db.schema
    .createTable('webhook_deliveries')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('webhook_id', 'text', (c) => c.notNull().references('webhooks.id'))
    .addColumn('job_id', 'text', (c) => c.notNull())
    .addColumn('event', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('sent_at', 'text')
    .addColumn('response_status', 'integer')
    .addColumn('error', 'text')
    .execute();
  // One delivery per webhook and event of a job: the outbox can never double an event.
  await db.schema
    .createIndex('webhook_deliveries_unique')
    .on('webhook_deliveries')
    .columns(['webhook_id', 'job_id', 'event'])
    .unique()
    .execute();
  await db.schema
    .createIndex('webhook_deliveries_status')
    .on('webhook_deliveries')
    .columns(['status', 'created_at'])
    .execute();
}
