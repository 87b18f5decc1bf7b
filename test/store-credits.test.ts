import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dialects, freshDatabase, type TestDatabase } from './helpers/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import {
  chargeHold,
  getBalanceSeconds,
  grantCredits,
  holdCredits,
  listLedger,
  releaseHold,
} from '../src/store/credits.ts';
import { createApiKey, findApiKey, KeyLimitError, revokeApiKey } from '../src/store/api-keys.ts';

describe.each(dialects)('credit ledger and keys on %s', (dialect) => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await freshDatabase(dialect);
  });
  afterAll(async () => {
    await t?.destroy();
  });

  test('a new account gets the free credit as a ledger grant', async () => {
    const a = await createAccount(t.db, `free-${dialect}@example.com`, 300);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(300);
    const ledger = await listLedger(t.db, a.id);
    expect(ledger.map((l) => [l.kind, l.delta_seconds])).toEqual([['grant', 300]]);
  });

  test('two concurrent holds that only one can afford: exactly one succeeds', async () => {
    const a = await createAccount(t.db, `race-${dialect}@example.com`, 100);
    const attempt = (job: string) => t.db.transaction().execute((tx) => holdCredits(tx, a.id, 80, job));
    const results = await Promise.all([attempt('job_a'), attempt('job_b'), attempt('job_c')]);
    expect(results.filter(Boolean)).toHaveLength(1);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(20);
  });

  test('charge converts a hold, releasing the unused part; release returns it all', async () => {
    const a = await createAccount(t.db, `settle-${dialect}@example.com`, 300);
    expect(await holdCredits(t.db, a.id, 240, 'job_1')).toBe(true);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(60);
    const s = await chargeHold(t.db, a.id, 'job_1', 200);
    expect(s).toEqual({ charged: 200, released: 40, uncovered: 0 });
    expect(await getBalanceSeconds(t.db, a.id)).toBe(100);
    expect(await holdCredits(t.db, a.id, 50, 'job_2')).toBe(true);
    expect(await releaseHold(t.db, a.id, 'job_2')).toBe(50);
    expect(await releaseHold(t.db, a.id, 'job_2')).toBe(0);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(100);
  });

  test('a cost beyond the hold takes what the balance has and never goes negative', async () => {
    const a = await createAccount(t.db, `over-${dialect}@example.com`, 300);
    expect(await holdCredits(t.db, a.id, 240, 'job_x')).toBe(true);
    const s = await chargeHold(t.db, a.id, 'job_x', 400);
    expect(s).toEqual({ charged: 300, released: 0, uncovered: 100 });
    expect(await getBalanceSeconds(t.db, a.id)).toBe(0);
    await grantCredits(t.db, a.id, 10);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(10);
  });

  test('keys are stored hashed, limited to five active, and revocable', async () => {
    const a = await createAccount(t.db, `keys-${dialect}@example.com`, 0);
    const keys = [];
    for (let i = 0; i < 5; i++) keys.push(await createApiKey(t.db, a.id));
    await expect(createApiKey(t.db, a.id)).rejects.toBeInstanceOf(KeyLimitError);
    const stored = await t.db.selectFrom('api_keys').selectAll().where('account_id', '=', a.id).execute();
    for (const row of stored) expect(keys.some((k) => row.hash.includes(k.key) || row.prefix === k.key)).toBe(false);
    const found = await findApiKey(t.db, keys[0]!.key);
    expect(found?.accountId).toBe(a.id);
    expect(await findApiKey(t.db, keys[0]!.key.slice(0, -1) + (keys[0]!.key.endsWith('a') ? 'b' : 'a'))).toBeNull();
    expect(await revokeApiKey(t.db, keys[0]!.info.id)).toBe(true);
    expect((await findApiKey(t.db, keys[0]!.key))?.revoked).toBe(true);
    await createApiKey(t.db, a.id); // a revoked key frees a slot
  });
});
