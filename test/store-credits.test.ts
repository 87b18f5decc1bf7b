import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { dialects, freshDatabase, type TestDatabase } from './helpers/db.ts';
import { migrate } from '../src/store/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import {
  chargeHold,
  getBalanceSeconds,
  grantCredits,
  holdCredits,
  listLedger,
  MAX_BALANCE_SECONDS,
  BalanceLimitError,
  releaseHold,
} from '../src/store/credits.ts';
import { createWebhook, MAX_WEBHOOKS_PER_ACCOUNT } from '../src/store/webhooks.ts';
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

  test('issue 41: amounts past 32 bits add up, settle and stay numbers', async () => {
    const a = await createAccount(t.db, `wide-${dialect}@example.com`, 0);
    for (let i = 0; i < 3; i++) await grantCredits(t.db, a.id, 1_000_000_000);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(3_000_000_000);
    // A job's hold, charge and release on a balance past 2^31 (where PostgreSQL's integer overflowed).
    expect(await holdCredits(t.db, a.id, 2_500_000_000, 'job_wide')).toBe(true);
    const s = await t.db.transaction().execute((tx) => chargeHold(tx, a.id, 'job_wide', 2_200_000_000));
    expect(s).toEqual({ charged: 2_200_000_000, released: 300_000_000, uncovered: 0 });
    expect(await getBalanceSeconds(t.db, a.id)).toBe(800_000_000);
    const ledger = await listLedger(t.db, a.id);
    expect(ledger.every((l) => typeof l.seconds === 'number' && typeof l.delta_seconds === 'number')).toBe(true);
    expect(ledger.find((l) => l.kind === 'hold')?.seconds).toBe(2_500_000_000);
  });

  test('issue 41: a grant past the balance cap is refused and changes nothing', async () => {
    const a = await createAccount(t.db, `cap-${dialect}@example.com`, 0);
    await t.db
      .updateTable('balances')
      .set({ balance_seconds: MAX_BALANCE_SECONDS - 5 })
      .where('account_id', '=', a.id)
      .execute();
    await expect(grantCredits(t.db, a.id, 6)).rejects.toBeInstanceOf(BalanceLimitError);
    await grantCredits(t.db, a.id, 5);
    expect(await getBalanceSeconds(t.db, a.id)).toBe(MAX_BALANCE_SECONDS);
    await expect(grantCredits(t.db, 'acct_nobody', 5)).rejects.toThrow(/unknown account/);
  });

  test('issue 41: twelve concurrent key and webhook creations stop at the limits', async () => {
    const a = await createAccount(t.db, `racing-${dialect}@example.com`, 0);
    const keys = await Promise.allSettled(Array.from({ length: 12 }, () => createApiKey(t.db, a.id)));
    expect(keys.filter((r) => r.status === 'fulfilled')).toHaveLength(5);
    for (const r of keys) if (r.status === 'rejected') expect(r.reason).toBeInstanceOf(KeyLimitError);
    const hooks = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        createWebhook(t.db, a.id, { url: `http://127.0.0.1:9/${i}`, events: ['job.completed'] }),
      ),
    );
    expect(hooks.filter((r) => r.status === 'fulfilled')).toHaveLength(MAX_WEBHOOKS_PER_ACCOUNT);
    const active = await t.db
      .selectFrom('api_keys')
      .select('id')
      .where('account_id', '=', a.id)
      .where('revoked_at', 'is', null)
      .execute();
    expect(active).toHaveLength(5);
  });

  test('issue 41: migration 012 widens an existing database and keeps its amounts', async () => {
    const old = await freshDatabase(dialect, '010-crash-accounting');
    try {
      // As an install before migration 012 left it: a balance near the top of PostgreSQL's 32-bit integer.
      const a = await createAccount(old.db, `old-${dialect}@example.com`, 0);
      await old.db
        .updateTable('balances')
        .set({ balance_seconds: 2_000_000_000 })
        .where('account_id', '=', a.id)
        .execute();
      expect(await holdCredits(old.db, a.id, 1_500_000_000, 'job_old')).toBe(true);
      await migrate(old, old.schema ? { schema: old.schema } : {});
      await grantCredits(old.db, a.id, 1_000_000_000);
      await grantCredits(old.db, a.id, 1_000_000_000);
      expect(await getBalanceSeconds(old.db, a.id)).toBe(2_500_000_000);
      expect(await releaseHold(old.db, a.id, 'job_old')).toBe(1_500_000_000);
      expect(await getBalanceSeconds(old.db, a.id)).toBe(4_000_000_000);
    } finally {
      await old.destroy();
    }
  });
});
