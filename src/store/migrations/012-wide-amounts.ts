import { PostgresAdapter, type Kysely } from 'kysely';

/**
 * Issue 41:
 * - credit amounts and sizes outgrow 32 bits on PostgreSQL, as they always could on SQLite (whose
 *   INTEGER is 64-bit): balances, ledger amounts, a job's credits and an upload's size. In 32 bits
 *   a third grant of 1e9 s overflowed, and so did the settlement of a job on such a balance.
 *   They become `double precision`, not `bigint`: node-postgres hands `bigint` to code that does not
 *   ask otherwise (every earlier release) as a string, which its answers' schemas refuse (500), while
 *   `double precision` reads as a number everywhere, so the previous release keeps working on the
 *   migrated database during a rolling upgrade (docs/upgrades.md). Every amount is a whole number
 *   below 2^53 (balances are capped at MAX_BALANCE_SECONDS, 1e15), which a double holds exactly,
 *   sums included; the values are JavaScript numbers on both sides anyway;
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
          .alterColumn(column, (c) => c.setDataType('double precision'))
          .execute();
      }
    }
  }
  await db.schema.alterTable('webhook_deliveries').addColumn('payload', 'text').execute();
}
