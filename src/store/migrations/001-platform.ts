import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema
    .createTable('accounts')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('email', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('api_keys')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('prefix', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('revoked_at', 'text')
    .addColumn('last_used_at', 'text')
    .execute();
  await db.schema.createIndex('api_keys_prefix').on('api_keys').column('prefix').execute();
  await db.schema.createIndex('api_keys_account').on('api_keys').column('account_id').execute();
  await db.schema
    .createTable('balances')
    .addColumn('account_id', 'text', (c) => c.primaryKey().references('accounts.id'))
    .addColumn('balance_seconds', 'integer', (c) => c.notNull().check(sqlNonNegative()))
    .addColumn('updated_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createTable('credit_ledger')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('seconds', 'integer', (c) => c.notNull())
    .addColumn('delta_seconds', 'integer', (c) => c.notNull())
    .addColumn('job_id', 'text')
    .addColumn('note', 'text')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .execute();
  await db.schema
    .createIndex('credit_ledger_account')
    .on('credit_ledger')
    .columns(['account_id', 'created_at'])
    .execute();
  await db.schema.createIndex('credit_ledger_job').on('credit_ledger').columns(['job_id', 'kind']).execute();
  await db.schema
    .createTable('uploads')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('account_id', 'text', (c) => c.notNull().references('accounts.id'))
    .addColumn('file_name', 'text', (c) => c.notNull())
    .addColumn('content_type', 'text', (c) => c.notNull())
    .addColumn('storage_key', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull())
    .addColumn('size_bytes', 'integer')
    .addColumn('duration_seconds', 'double precision')
    .addColumn('created_at', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'text', (c) => c.notNull())
    .addColumn('uploaded_at', 'text')
    .execute();
}

// The balance can never go negative, whatever a caller does: the database refuses it.
function sqlNonNegative() {
  return sql`balance_seconds >= 0`;
}
