/**
 * Crash soak of the scale-out deployment: an API process (`serve --no-workers`) and a worker process
 * (`worker`) over PostgreSQL, BullMQ on Redis and S3 (the repository's S3 server on loopback). The
 * worker is killed with SIGKILL at aimed moments, in turn: a job `separating` (its stems being
 * encoded as they come), `analysing`, `uploading` (writing its outputs to S3), and a delivery the
 * receiver has read and holds; it is
 * started again at once, so the dead worker's lease is still live for up to 30 s and its job comes
 * back only through the lease running out (BullMQ's stalled recovery or the workers' re-offer).
 * Meanwhile the queue is watched: the most waiting messages one job ever had.
 * After the last kill everything runs to the end, then the figures are read: every job once, one
 * hold and one settlement each, balance = ledger sum, every output in the bucket and decoding at the
 * input's length, every event answered 200 with the webhook active, and how long until nothing is
 * left in the worker's work/ and tmp/ nor open as a multipart upload in the bucket.
 *
 *   node bin/run-ts.mjs bench/crash-soak-scale-out.ts [--aimed 8] [--intents 8] [--seed 7]
 *
 * Needs PostgreSQL and Redis on 127.0.0.1 (TEST_DATABASE_URL, TEST_REDIS_URL). Prints figures; exits
 * non-zero when an invariant is broken (a bench asserts no timing).
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync } from 'node:fs';
import { readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import pg from 'pg';
import { Queue } from 'bullmq';
import { Redis } from 'ioredis';
import { GetObjectCommand, ListMultipartUploadsCommand, S3Client } from '@aws-sdk/client-s3';
import { s3Settings, startS3Server } from '../support/s3-server.ts';
import { connectDatabase } from '../src/store/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import { createApiKey } from '../src/store/api-keys.ts';
import { rng } from '../support/fixtures/synth-voices.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const shared = resolve(process.env.STEMFORGE_SHARED ?? join(repo, '../shared'));
const PG_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';
const { values: args } = parseArgs({
  options: {
    aimed: { type: 'string', default: '8' },
    intents: { type: 'string', default: '8' },
    seed: { type: 'string', default: '7' },
  },
});
const AIMED = Number(args.aimed);
const INTENTS = Number(args.intents);
// mulberry32, seeded: a run can be repeated.
const random = rng(Number(args.seed));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

// ---- the services: a database of its own, the S3 server, a Redis prefix ---------------------------
const database = `sf_soak_${randomBytes(4).toString('hex')}`;
const admin = new pg.Client({ connectionString: PG_URL });
await admin.connect();
await admin.query(`CREATE DATABASE ${database}`);
const dbUrl = new URL(PG_URL);
dbUrl.pathname = `/${database}`;
const s3 = await startS3Server('stemforge-soak');
const s3Client = new S3Client({
  region: s3.region,
  endpoint: s3.endpoint,
  forcePathStyle: true,
  credentials: { accessKeyId: s3.accessKeyId, secretAccessKey: s3.secretAccessKey },
});
const prefix = `sfsoak-${randomBytes(4).toString('hex')}`;
const apiData = mkdtempSync(join(tmpdir(), 'stemforge-soak-api-'));
const workerData = mkdtempSync(join(tmpdir(), 'stemforge-soak-worker-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;

// ---- webhook receiver: answers within a second, or holds what it read ------------------------------
const received: Array<{ jobId: string; event: string; at: number; answered: boolean }> = [];
let holding = false;
const held: Array<{ res: ServerResponse; entry: { at: number; answered: boolean }; open: boolean }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { jobId: string } };
    const entry = { jobId: body.data.jobId, event: body.event, at: Date.now(), answered: false };
    received.push(entry);
    if (holding) {
      const h = { res, entry, open: true };
      res.once('close', () => (h.open = false));
      held.push(h);
      return;
    }
    setTimeout(() => {
      entry.answered = true;
      res.writeHead(200).end('ok');
    }, random() * 1_000);
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
function releaseHeld(): void {
  holding = false;
  for (const h of held.splice(0)) {
    if (!h.open) continue;
    h.entry.answered = true;
    h.res.writeHead(200).end('ok');
  }
}

// ---- the processes --------------------------------------------------------------------------------
const common = {
  ...process.env,
  STEMFORGE_MODE: 'scale-out',
  DATABASE_URL: dbUrl.toString(),
  REDIS_URL,
  REDIS_PREFIX: prefix,
  ...s3Settings(s3),
  STEMFORGE_SIGNING_SECRET: randomBytes(32).toString('hex'),
  STEMFORGE_BOOTSTRAP_ACCOUNT: 'false',
  ALLOW_PRIVATE_URLS: 'true',
  MIN_DURATION_SECONDS: '1',
  RATE_LIMIT_PER_MINUTE: '100000',
  JOB_RETRY_BASE_MS: '200',
  // Kills come far more often than real crashes here; the bound (3) is for poison inputs.
  JOB_MAX_CRASHES: '10',
  WEBHOOK_TIMEOUT_MS: '10000',
  ORPHAN_SWEEP_SECONDS: '10',
  LOG_LEVEL: 'error',
};
function start(args: string[], env: Record<string, string | undefined>, ready: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), ...args], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise((ok, fail) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes(ready)) ok(child);
    });
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code, signal) => fail(new Error(`${args[0]} exited (${code ?? signal}): ${out}`)));
  });
}
const api = await start(
  ['serve', '--no-workers'],
  { ...common, PORT: String(port), STEMFORGE_DATA_DIR: apiData, STEMFORGE_MODELS_DIR: join(apiData, 'models') },
  'Stemforge listening',
);
const workerEnv = { ...common, STEMFORGE_DATA_DIR: workerData, STEMFORGE_MODELS_DIR: join(shared, 'models') };
let worker: ChildProcess | undefined = await start(['worker'], workerEnv, 'Stemforge worker started');
let workerStartedAt = Date.now();

const watch = await connectDatabase(dbUrl.toString());
const account = await createAccount(watch.db, 'soak@example.com', 100_000);
const { key } = await createApiKey(watch.db, account.id);
const auth = { authorization: `Bearer ${key}` };
const hook = (await (
  await fetch(`${base}/v1/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ url: hookUrl }),
  })
).json()) as { id: string };

// ---- short clips, cut with the real ffmpeg; the client creates stem jobs, two at a time -----------
const src = join(shared, 'audio', 'music');
const file = readdirSync(src).find((f) => /\.(ogg|wav|flac|mp3)$/.test(f))!;
const clipPath = join(apiData, 'clip.wav');
await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', join(src, file), '-t', '3', clipPath]);
const clip = await readFile(clipPath);
const jobIds: string[] = [];
async function openJobs(): Promise<number> {
  const open = await watch.db
    .selectFrom('jobs')
    .select('id')
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .execute();
  return open.length;
}
let clientsDone = false;
const clients = (async () => {
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < INTENTS) {
        const i = next++;
        // Two jobs open at most, so jobs are in flight across all the kills.
        while ((await openJobs()) >= 2) await sleep(200);
        await sleep(random() * 3_000);
        const form = new FormData();
        form.append('file', new Blob([clip], { type: 'audio/wav' }), `clip-${i}.wav`);
        const up = (await (
          await fetch(`${base}/v1/files/upload`, { method: 'POST', headers: auth, body: form })
        ).json()) as { uploadKey: string };
        const job = (await (
          await fetch(`${base}/v1/jobs`, {
            method: 'POST',
            headers: { ...auth, 'content-type': 'application/json' },
            body: JSON.stringify({
              uploadKey: up.uploadKey,
              outputType: 'VOCALS',
              quality: 'FAST',
              outputFormat: 'WAV',
            }),
          })
        ).json()) as { id: string };
        jobIds.push(job.id);
      }
    }),
  );
  clientsDone = true;
})();

// ---- the queue watch: the most waiting messages one job ever had ----------------------------------
const redis = new Redis(REDIS_URL, { maxRetriesPerRequest: null });
const queue = new Queue('jobs-inference', { connection: redis, prefix });
let mostMessages = 0;
let watching = true;
const queueWatch = (async () => {
  while (watching) {
    const messages = await queue.getJobs(['waiting', 'delayed', 'prioritized']).catch(() => []);
    const per = new Map<string, number>();
    for (const m of messages) per.set(m.data.jobId, (per.get(m.data.jobId) ?? 0) + 1);
    mostMessages = Math.max(mostMessages, ...per.values());
    await sleep(200);
  }
})();

// ---- what a kill leaves: the worker's temporary places and open multipart uploads -----------------
async function openUploads(): Promise<number> {
  const page = await s3Client.send(new ListMultipartUploadsCommand({ Bucket: s3.bucket }));
  return page.Uploads?.length ?? 0;
}
async function leftovers(): Promise<{ files: number; bytes: number; uploads: number }> {
  let files = 0;
  let bytes = 0;
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path);
      else {
        files++;
        bytes += (await stat(path).catch(() => ({ size: 0 }))).size;
      }
    }
  };
  for (const place of ['work', 'tmp']) await walk(join(workerData, place));
  return { files, bytes, uploads: await openUploads() };
}

// ---- the soak: aimed kills of the worker ----------------------------------------------------------
const cpu = (await run('sh', ['-c', "lscpu | grep 'Model name' | sed 's/.*: *//'"])).stdout.trim();
console.log(
  `scale-out crash soak: ${AIMED} aimed kills, ${INTENTS} stem jobs, seed ${args.seed}; ${cpu}, ${cpus().length} CPUs`,
);
console.log('(this machine is shared with other engineers and loaded; times are indicative only)');
const t0 = Date.now();
type Phase = 'separating' | 'analysing' | 'uploading' | 'webhook held';
const PHASES: Phase[] = ['separating', 'analysing', 'uploading', 'webhook held'];
const kills: Array<{ aim: Phase; landed: boolean; files: number; bytes: number; uploads: number }> = [];
let missed = 0;
for (let k = 0; k < AIMED; k++) {
  const aim = PHASES[k % PHASES.length]!;
  const until = Date.now() + 60_000;
  let landed: (() => Promise<boolean>) | null = null;
  if (aim === 'webhook held') holding = true;
  while (Date.now() < until && !landed) {
    if (aim === 'webhook held') {
      const since = workerStartedAt;
      if (held.some((h) => h.open && h.entry.at >= since)) landed = async () => true;
    } else {
      const job = await watch.db
        .selectFrom('jobs')
        .select(['id', 'crashes'])
        .where('status', '=', 'PROCESSING')
        .where('progress_phase', '=', aim)
        .where('crashes', '<', 2)
        .executeTakeFirst();
      if (job) {
        landed = async () => {
          const row = await watch.db
            .selectFrom('jobs')
            .select(['status', 'progress_phase', 'crashes'])
            .where('id', '=', job.id)
            .executeTakeFirstOrThrow();
          return row.status === 'PROCESSING' && row.progress_phase === aim && row.crashes === job.crashes;
        };
      }
    }
    if (!landed) await sleep(10);
  }
  if (!landed) {
    holding = false;
    missed++;
    if (clientsDone && jobIds.length === INTENTS) {
      const open = await watch.db
        .selectFrom('jobs')
        .select('id')
        .where('status', 'in', ['PENDING', 'PROCESSING'])
        .execute();
      if (open.length === 0) break;
    }
    continue;
  }
  const dying = worker!;
  const exited = new Promise((r) => dying.once('exit', r));
  dying.kill('SIGKILL');
  await exited;
  const left = await leftovers();
  kills.push({ aim, landed: await landed(), ...left });
  releaseHeld();
  workerStartedAt = Date.now();
  worker = await start(['worker'], workerEnv, 'Stemforge worker started');
}
releaseHeld();
await clients;

// Everything runs to the end; then how long until nothing is left behind.
const deadline = Date.now() + 900_000;
for (;;) {
  const open = await watch.db
    .selectFrom('jobs')
    .select('id')
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .execute();
  const pending = await watch.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['pending', 'sending'])
    .execute();
  if (open.length === 0 && pending.length === 0) break;
  if (Date.now() > deadline) throw new Error('jobs or deliveries still open after 15 minutes');
  await sleep(500);
}
const settledAt = Date.now();
let final = await leftovers();
while ((final.files || final.uploads) && Date.now() - settledAt < 120_000) {
  await sleep(1000);
  final = await leftovers();
}
const cleanAfter = (Date.now() - settledAt) / 1000;
watching = false;
await queueWatch;
const seconds = (Date.now() - t0) / 1000;

// ---- the figures ----------------------------------------------------------------------------------
const db = watch.db;
const jobs = await db.selectFrom('jobs').selectAll().where('account_id', '=', account.id).execute();
const ledger = await db.selectFrom('credit_ledger').selectAll().where('account_id', '=', account.id).execute();
const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
const hookRow = await db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
const balance = await db
  .selectFrom('balances')
  .select('balance_seconds')
  .where('account_id', '=', account.id)
  .executeTakeFirstOrThrow();
const problems: string[] = [];
if (jobs.length !== INTENTS) problems.push(`${jobs.length} jobs for ${INTENTS} intents`);
let completed = 0;
for (const job of jobs) {
  if (job.status === 'COMPLETED') completed++;
  else if (job.status !== 'FAILED') problems.push(`job ${job.id} ended ${job.status}`);
  const moves = ledger.filter((l) => l.job_id === job.id);
  const holds = moves.filter((l) => l.kind === 'hold').length;
  const settles = moves.filter((l) => l.kind === 'charge' || l.kind === 'release').length;
  if (holds !== 1 || settles !== 1) problems.push(`job ${job.id}: ${holds} hold(s), ${settles} settlement(s)`);
}
const sumDelta = ledger.reduce((s, l) => s + l.delta_seconds, 0);
if (sumDelta !== balance.balance_seconds)
  problems.push(`ledger sums to ${sumDelta}, balance ${balance.balance_seconds}`);
let outputs = 0;
let outputsBad = 0;
const probeDir = mkdtempSync(join(tmpdir(), 'stemforge-soak-probe-'));
for (const job of jobs.filter((j) => j.status === 'COMPLETED' && j.outputs_json)) {
  for (const out of Object.values(JSON.parse(job.outputs_json!) as Record<string, { key: string }>)) {
    outputs++;
    const local = join(probeDir, `${outputs}.wav`);
    const seconds = await s3Client
      .send(new GetObjectCommand({ Bucket: s3.bucket, Key: out.key }))
      .then(async (o) => writeFile(local, Buffer.from(await o.Body!.transformToByteArray())))
      .then(() => run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', local]))
      .then((r) => Number(r.stdout.trim()))
      .catch(() => Number.NaN);
    if (!(Math.abs(seconds - (job.duration_seconds ?? 0)) < 0.1)) {
      outputsBad++;
      problems.push(`job ${job.id}: an output decodes to ${seconds} s`);
    }
  }
}
const answered = new Set(received.filter((r) => r.answered).map((r) => `${r.jobId} ${r.event}`));
let lost = 0;
for (const job of jobs) {
  const event = job.status === 'COMPLETED' ? 'job.completed' : 'job.failed';
  const row = deliveries.find((d) => d.job_id === job.id && d.event === event);
  if (!row || !answered.has(`${job.id} ${event}`) || row.response_status !== 200) lost++;
}
if (lost) problems.push(`${lost} event(s) not delivered`);
if (hookRow.is_active !== 1 || hookRow.fail_count !== 0)
  problems.push(`webhook active ${hookRow.is_active}, failCount ${hookRow.fail_count}`);
if (mostMessages > 1) problems.push(`a job had ${mostMessages} waiting messages at once`);
if (final.files || final.uploads)
  problems.push(`left after ${cleanAfter} s: ${final.files} files, ${final.uploads} uploads`);

const mb = (b: number) => (b / 1e6).toFixed(1);
console.log(
  `${kills.length} kill -9 of the worker in ${seconds.toFixed(0)} s; ${missed} aimed kill(s) found no target`,
);
console.log('aimed at            | kills | landed | left in work/, tmp/ and open multipart uploads at the kill');
for (const aim of PHASES) {
  const ks = kills.filter((k) => k.aim === aim);
  if (!ks.length) continue;
  const sum = (f: (k: (typeof ks)[number]) => number) => ks.reduce((n, k) => n + f(k), 0);
  console.log(
    `${aim.padEnd(19)} | ${String(ks.length).padStart(5)} | ${String(ks.filter((k) => k.landed).length).padStart(6)} | ${sum((k) => k.files)} files, ${mb(sum((k) => k.bytes))} MB, ${sum((k) => k.uploads)} uploads`,
  );
}
console.log(
  `jobs: ${jobs.length} for ${INTENTS} intents, ${completed} COMPLETED, ${jobs.length - completed} FAILED (${jobs.filter((j) => j.error_code === 'JOB_CRASHED').length} JOB_CRASHED); ${jobs.reduce((n, j) => n + j.crashes, 0)} crash(es) counted, highest attempts ${Math.max(0, ...jobs.map((j) => j.attempts))}`,
);
console.log(`credits: ${ledger.length} ledger rows, balance ${balance.balance_seconds} s, ledger sum ${sumDelta} s`);
console.log(`outputs: ${outputs} in the bucket, ${outputsBad} missing or of the wrong length`);
console.log(
  `webhooks: ${received.length} requests for ${deliveries.length} events, ${lost} lost; webhook active ${hookRow.is_active === 1}, failCount ${hookRow.fail_count}`,
);
console.log(`queue: at most ${mostMessages} waiting message(s) for one job`);
console.log(
  `leftovers: ${final.files} files, ${final.uploads} open uploads, ${cleanAfter.toFixed(0)} s after the last job settled`,
);
console.log(problems.length ? `INVARIANTS BROKEN:\n  ${problems.join('\n  ')}` : 'all invariants hold');

for (const p of [worker, api]) {
  if (p && p.exitCode === null) {
    p.kill('SIGTERM');
    await new Promise((r) => p.once('exit', r));
  }
}
await queue.close();
redis.disconnect();
await watch.close();
s3Client.destroy();
await s3.close();
receiver.closeAllConnections();
receiver.close();
await admin.query(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`).catch(() => undefined);
await admin.end();
for (const d of [apiData, workerData, probeDir]) await rm(d, { recursive: true, force: true });
process.exit(problems.length ? 1 : 0);
