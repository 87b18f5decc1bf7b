/**
 * Benchmark: what a Prometheus scrape of `/metrics` costs with a busy jobs table. The queue gauges
 * read the jobs table at each scrape (two grouped queries per stage); this fills it with finished
 * jobs and a backlog, then times `GET /metrics` over loopback on SQLite and on PostgreSQL,
 * alternating, medians. Also reports the body's size.
 *   node bin/run-ts.mjs bench/metrics-scrape.ts [finished jobs, default 50000] [waiting jobs, default 2000] [scrapes, default 9]
 */
import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { loadConfig } from '../src/config.ts';
import { createRuntime, type Runtime } from '../src/runtime.ts';
import { buildApp } from '../src/app/build-app.ts';
import { createAccount } from '../src/store/accounts.ts';
import { insertJob, newJobRow } from '../src/store/jobs.ts';
import { newId } from '../src/domain/ids.ts';
import { median } from '../support/median.ts';

const finished = Number(process.argv[2] ?? 50_000);
const waiting = Number(process.argv[3] ?? 2_000);
const scrapes = Number(process.argv[4] ?? 9);
const token = randomBytes(24).toString('hex');
const postgresUrl = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';

async function fill(rt: Runtime): Promise<void> {
  const account = await createAccount(rt.db, 'bench@example.com', 0);
  const now = Date.now();
  const rows = Array.from({ length: finished + waiting }, (_, i) => {
    const done = i < finished;
    const at = new Date(now - (finished + waiting - i) * 1000).toISOString();
    return {
      ...newJobRow({
        id: newId('job'),
        account_id: account.id,
        kind: (['stem', 'denoise', 'video'] as const)[i % 3]!,
        input_json: '{}',
        options_json: '{"quality":"FAST"}',
        metadata_json: null,
        source_key: 'uploads/x.wav',
        duration_seconds: 60,
        credits_required: 60,
        created_at: at,
      }),
      ...(done && {
        status: 'COMPLETED' as const,
        progress: 100,
        progress_phase: 'completed' as const,
        credits_charged: 60,
        attempts: 1,
        completed_at: at,
      }),
    };
  });
  for (let i = 0; i < rows.length; i += 500) {
    await rt.db.transaction().execute(async (tx) => {
      for (const row of rows.slice(i, i + 500)) await insertJob(tx, row);
    });
  }
}

interface Side {
  name: string;
  base: string;
  times: number[];
  bytes: number;
  close(): Promise<void>;
}

async function start(name: string, databaseUrl: string | undefined, schema?: string): Promise<Side> {
  const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-bench-metrics-'));
  const config = loadConfig({
    STEMFORGE_DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    METRICS_TOKEN: token,
    STEMFORGE_BOOTSTRAP_ACCOUNT: 'false',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  const rt = await createRuntime(config, { dbSchema: schema });
  await fill(rt);
  const app = buildApp(rt, { logger: false });
  await app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = app.server.address() as { port: number };
  return {
    name,
    base: `http://127.0.0.1:${port}`,
    times: [],
    bytes: 0,
    async close() {
      await app.close();
      await rt.close();
      await rm(dataDir, { recursive: true, force: true });
    },
  };
}

const schema = `bench_${randomBytes(4).toString('hex')}`;
const sides = [await start('SQLite', undefined), await start('PostgreSQL', postgresUrl, schema)];
for (let i = 0; i < scrapes; i++) {
  for (const side of sides) {
    const t0 = performance.now();
    const res = await fetch(`${side.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const body = await res.text();
    side.times.push(performance.now() - t0);
    side.bytes = body.length;
    if (!body.includes(`stemforge_queue_depth{queue="inference"} ${waiting}`))
      throw new Error(`${side.name}: wrong depth`);
  }
  // The gauges share one database read per second: wait it out so every scrape reads the table.
  await new Promise((r) => setTimeout(r, 1100));
}
console.log(
  `node ${process.version}, ${cpus()[0]?.model} x${cpus().length}; ${finished} finished + ${waiting} waiting jobs; ${scrapes} alternating scrapes per side`,
);
for (const side of sides) {
  console.log(
    `${side.name.padEnd(10)} GET /metrics median ${median(side.times).toFixed(1)} ms (min ${Math.min(...side.times).toFixed(1)}, max ${Math.max(...side.times).toFixed(1)}), body ${(side.bytes / 1024).toFixed(1)} KB`,
  );
}
for (const side of sides) await side.close();
const client = new pg.Client({ connectionString: postgresUrl });
await client.connect();
await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
await client.end();
