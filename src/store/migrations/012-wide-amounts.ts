import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 41:
 * - credit amounts and sizes are 64-bit on PostgreSQL, as they always were on SQLite (whose
 *   INTEGER is 64-bit): balances, ledger amounts, a job's credits and an upload's size. In 32 bits
 *   a third grant of 1e9 s overflowed, and so did the settlement of a job on such a balance;
 * - `webhook_deliveries.payload`: the event's body as it was when the job's state committed, so a
 *   delivery sent again after our crash is byte-identical (null on rows written before it; those
 *   are built at send time, as before).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  if (db.getExecutor().adapter instanceof PostgresAdapter) {
    const wide: Array<[string, string[]]> = [
      ['balances', ['balance_seconds']],
      ['credit_ledger', ['seconds', 'delta_seconds']],
      ['jobs', ['credits_required', 'credits_charged']],
      ['uploads', ['size_bytes']],
    ];
    for (const [table, columns] of wide) {
      for (const column of columns) {
        await db.schema
          .alterTable(table)
          .alterColumn(column, (c) => c.setDataType('bigint'))
          .execute();
      }
    }
  }
  await db.schema.alterTable('webhook_deliveries').addColumn('payload', 'text').execute();
}
