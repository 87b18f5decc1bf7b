/**
 * The admin API's account list at scale: N accounts (default 10,000) on SQLite and on PostgreSQL,
 * then over HTTP on loopback the first page, the last page, an email search (a substring, so a scan
 * of the emails) and, for comparison in the same run, GET /v1/balance (the API-key lookup every
 * request pays). Medians of 21 requests after 3 warm-ups, per dialect, alternating the routes.
 *
 *   node bin/run-ts.mjs bench/admin-accounts.ts [accounts, default 10000]
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/runtime.ts';
import { buildApp } from '../src/app/build-app.ts';
import { createAccount } from '../src/store/accounts.ts';
import { createApiKey } from '../src/store/api-keys.ts';

const n = Number(process.argv[2] ?? 10_000);
const pgUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function run(dialect: 'sqlite' | 'postgres'): Promise<void> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-bench-admin-'));
  const schema = `bench_${randomBytes(4).toString('hex')}`;
  const config = loadConfig({
    STEMFORGE_DATA_DIR: dataDir,
    PORT: '18124',
    LOG_LEVEL: 'silent',
    RATE_LIMIT_PER_MINUTE: '1000000',
    ...(dialect === 'postgres' ? { DATABASE_URL: pgUrl } : {}),
  });
  const rt = await createRuntime(config, dialect === 'postgres' ? { dbSchema: schema } : {});
  try {
    const admin = await createAccount(rt.db, 'admin@example.com', 0);
    const { key } = await createApiKey(rt.db, admin.id);
    const now = Date.now();
    for (let i = 0; i < n; i += 500) {
      const rows = Array.from({ length: Math.min(500, n - i) }, (_, j) => ({
        id: `acct_bench_${String(i + j).padStart(7, '0')}`,
        email: `user-${i + j}@customers.example.com`,
        created_at: new Date(now + i + j).toISOString(),
        password_hash: null,
        is_admin: 0,
        disabled_at: null,
      }));
      await rt.db.insertInto('accounts').values(rows).execute();
      await rt.db
        .insertInto('balances')
        .values(rows.map((r) => ({ account_id: r.id, balance_seconds: 300, updated_at: r.created_at })))
        .execute();
    }
    const app = buildApp(rt, { logger: false });
    await app.listen({ port: 18124, host: '127.0.0.1' });
    const routes: Record<string, string> = {
      'first page (limit 20)': '/v1/admin/accounts?limit=20',
      'last page (offset N-20)': `/v1/admin/accounts?limit=20&offset=${n - 19}`,
      'search q=user-4242@': '/v1/admin/accounts?q=user-4242@',
      'GET /v1/balance (peer)': '/v1/balance',
    };
    const times: Record<string, number[]> = Object.fromEntries(Object.keys(routes).map((k) => [k, []]));
    for (let round = 0; round < 24; round++) {
      for (const [name, path] of Object.entries(routes)) {
        const t = performance.now();
        const res = await fetch(`http://127.0.0.1:18124${path}`, { headers: { authorization: `Bearer ${key}` } });
        await res.arrayBuffer();
        if (res.status !== 200) throw new Error(`${path}: ${res.status}`);
        if (round >= 3) times[name]!.push(performance.now() - t);
      }
    }
    await app.close();
    for (const [name, xs] of Object.entries(times)) {
      console.log(`  ${dialect.padEnd(8)} ${name.padEnd(26)} median ${median(xs).toFixed(1)} ms`);
    }
  } finally {
    await rt.close();
    await rm(dataDir, { recursive: true, force: true });
    if (dialect === 'postgres') {
      const client = new pg.Client({ connectionString: pgUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      await client.end();
    }
  }
}

console.log(`admin account list with ${n} accounts, ${cpus()[0]?.model ?? 'unknown CPU'} x${cpus().length}`);
for (const dialect of ['sqlite', 'postgres'] as const) await run(dialect);
