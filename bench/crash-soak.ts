/**
 * Crash-safety soak: the real `stemforge serve` (embedded: API, workers and webhook dispatcher in one
 * process) is killed with SIGKILL at random moments while a client uploads files, creates stem and
 * denoise jobs (with Idempotency-Key, retrying every failed or cut request as a real client does),
 * jobs are processed and webhooks are delivered. After N rounds the server runs until every job is
 * terminal, then the figures are read from the API, the database and the webhook receiver:
 * every intended job exists once and finished once, every credit is in the ledger, every event
 * was delivered at most once, and none was lost except deliveries recorded as interrupted.
 *
 *   node bin/run-ts.mjs bench/crash-soak.ts [--rounds 6] [--intents 8] [--seed 42]
 *
 * Prints figures; exits non-zero when an invariant is broken (a bench asserts no timing).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { connectDatabase } from '../src/store/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import { createApiKey } from '../src/store/api-keys.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const shared = resolve(process.env.STEMFORGE_SHARED ?? join(repo, '../shared'));
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    intents: { type: 'string', default: '9' },
    seed: { type: 'string', default: '42' },
  },
});
const ROUNDS = Number(args.rounds);
const INTENTS = Number(args.intents);
let seed = Number(args.seed);
const random = () => {
  // mulberry32: a seeded sequence, so a run can be repeated.
  seed = (seed + 0x6d2b79f5) | 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-soak-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;

// ---- webhook receiver: records every delivery --------------------------------------------------
const received: Array<{ jobId: string; event: string }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { jobId: string } };
      received.push({ jobId: body.data.jobId, event: body.event });
    } catch {
      // not a webhook
    }
    // A slow receiver (up to 4 s), so that kills land while deliveries are being sent.
    setTimeout(() => res.writeHead(200).end('ok'), random() * 4_000);
  });
});
await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

// ---- the account, made before the server starts (the server migrates the same file) -----------
const dbUrl = `sqlite:${join(dataDir, 'stemforge.db')}`;
const setup = await connectDatabase(dbUrl);
const account = await createAccount(setup.db, 'soak@example.com', 100_000);
const { key } = await createApiKey(setup.db, account.id);
await setup.close();

// ---- short clips, cut with the real ffmpeg --------------------------------------------------------
const clip = async (dir: string, seconds: number, name: string) => {
  const src = join(shared, 'audio', dir);
  const file = readdirSync(src).find((f) => /\.(ogg|wav|flac|mp3)$/.test(f))!;
  const out = join(dataDir, name);
  await run('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', join(src, file), '-t', String(seconds), out]);
  return readFile(out);
};
const speech = await clip('speech', 4, 'speech.wav');
const music = await clip('music', 3, 'music.wav');

// ---- the server, started and killed ---------------------------------------------------------------
const env = {
  ...process.env,
  STEMFORGE_DATA_DIR: dataDir,
  PORT: String(port),
  HOST: '127.0.0.1',
  STEMFORGE_BOOTSTRAP_ACCOUNT: 'false',
  STEMFORGE_MODELS_DIR: join(shared, 'models'),
  ALLOW_PRIVATE_URLS: 'true',
  MIN_DURATION_SECONDS: '1',
  RATE_LIMIT_PER_MINUTE: '100000',
  JOB_RETRY_BASE_MS: '200',
  JOB_MAX_ATTEMPTS: '5',
  WEBHOOK_TIMEOUT_MS: '2000',
  LOG_LEVEL: 'error',
};
let server: ChildProcess | undefined;
async function startServer(): Promise<void> {
  const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), 'serve'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  server = child;
  await new Promise<void>((ok, fail) => {
    let out = '';
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stemforge listening')) ok();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.once('exit', (code, signal) => fail(new Error(`server exited (${code ?? signal}) before listening: ${out}`)));
  });
}
function killServer(): void {
  server?.kill('SIGKILL');
  server = undefined;
}

// ---- the client: each intent is an upload then a job, every request retried with its key --------
interface Intent {
  kind: 'stem' | 'denoise';
  uploadKey?: string;
  jobId?: string;
  retries: number;
  replays: number;
}
const intents: Intent[] = Array.from({ length: INTENTS }, (_, i) => ({
  kind: i % 3 === 0 ? 'stem' : 'denoise',
  retries: 0,
  replays: 0,
}));

let inFlight = 0;
async function withRetry(intent: Intent, make: () => Promise<Response>): Promise<any> {
  for (;;) {
    try {
      inFlight++;
      const res = await make().finally(() => inFlight--);
      if (res.headers.get('idempotent-replayed') === 'true') intent.replays++;
      if (res.status < 300) return await res.json();
      const text = await res.text();
      // 409 IN_PROGRESS: the first attempt still runs, or died with the server (the restart frees it).
      if (res.status === 409 || res.status >= 500) {
        intent.retries++;
        await sleep(500);
        continue;
      }
      throw new Error(`refused: ${res.status} ${text}`);
    } catch (err) {
      if ((err as Error).message.startsWith('refused')) throw err;
      intent.retries++;
      await sleep(200 + random() * 300); // connection refused or cut: the server is down
    }
  }
}

const auth = { authorization: `Bearer ${key}` };
async function runIntent(intent: Intent, i: number): Promise<void> {
  const bytes = intent.kind === 'stem' ? music : speech;
  const uploaded = await withRetry(intent, () => {
    const form = new FormData();
    form.append('file', new Blob([bytes], { type: 'audio/wav' }), `clip-${i}.wav`);
    return fetch(`${base}/v1/files/upload`, {
      method: 'POST',
      headers: { ...auth, 'idempotency-key': `upload-${i}` },
      body: form,
      signal: AbortSignal.timeout(20_000),
    });
  });
  intent.uploadKey = uploaded.uploadKey;
  const body =
    intent.kind === 'stem'
      ? { uploadKey: uploaded.uploadKey, outputType: 'VOCALS', quality: 'FAST', outputFormat: 'WAV' }
      : {
          inputFileName: `clip-${i}.wav`,
          inputFilePath: uploaded.uploadKey,
          inputFileSize: uploaded.fileSizeBytes,
          durationSeconds: Math.round(uploaded.durationSeconds),
          outputFormat: 'WAV',
        };
  const created = await withRetry(intent, () =>
    fetch(`${base}/v1/${intent.kind === 'stem' ? 'jobs' : 'denoise-jobs'}`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': `job-${i}` },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(20_000),
    }),
  );
  intent.jobId = created.id;
}

// ---- the soak -------------------------------------------------------------------------------------
const cpu = (await run('sh', ['-c', "lscpu | grep 'Model name' | sed 's/.*: *//'"])).stdout.trim();
console.log(`crash soak: ${ROUNDS} rounds, ${INTENTS} intents, seed ${args.seed}; ${cpu}, ${cpus().length} CPUs`);
console.log('(this machine is shared with other engineers and loaded; times are indicative only)');
const t0 = Date.now();
await startServer();
const hook = await withRetry({ kind: 'stem', retries: 0, replays: 0 }, () =>
  fetch(`${base}/v1/webhooks`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', 'idempotency-key': 'hook-1' },
    body: JSON.stringify({ url: hookUrl }),
  }),
);
const clients = (async () => {
  // Two intents at a time, as two client threads would.
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < intents.length) {
        const i = next++;
        // Paced so that requests are in flight across the rounds, not only before the first kill.
        await sleep(random() * ((ROUNDS * 3_000) / INTENTS) * 2);
        await runIntent(intents[i]!, i);
      }
    }),
  );
})();
const kills: number[] = [];
const killedDuring = { requests: 0, processing: 0, deliveries: 0 };
const watch = await connectDatabase(dbUrl);
for (let round = 0; round < ROUNDS; round++) {
  const after = 500 + random() * 5_000;
  await sleep(after);
  const processing = await watch.db.selectFrom('jobs').select('id').where('status', '=', 'PROCESSING').execute();
  const sending = await watch.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['pending', 'sending'])
    .execute();
  if (inFlight > 0) killedDuring.requests++;
  if (processing.length > 0) killedDuring.processing++;
  if (sending.length > 0) killedDuring.deliveries++;
  killServer();
  kills.push(Math.round(after));
  await sleep(100 + random() * 400);
  await startServer();
}
await clients;
// Then kills while the last events go out (stem jobs finish late: the separation process loads
// its model after each restart, so their events come after the random kills).
for (let extra = 0; extra < Math.ceil(ROUNDS / 2); extra++) {
  // Aimed, not random: wait for a delivery being sent (the receiver answers slowly) and kill then.
  const until = Date.now() + 30_000;
  let sending = 0;
  while (Date.now() < until && sending === 0) {
    await sleep(50);
    sending = (await watch.db.selectFrom('webhook_deliveries').select('id').where('status', '=', 'sending').execute())
      .length;
  }
  if (sending === 0) break;
  killedDuring.deliveries++;
  killServer();
  kills.push(-1);
  await sleep(100 + random() * 400);
  await startServer();
}
await watch.close();

// Let the last server finish every job and every delivery.
const deadline = Date.now() + 600_000;
const probe = await connectDatabase(dbUrl);
for (;;) {
  const open = await probe.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .executeTakeFirstOrThrow();
  const pending = await probe.db
    .selectFrom('webhook_deliveries')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['pending', 'sending'])
    .executeTakeFirstOrThrow();
  if (Number(open.n) === 0 && Number(pending.n) === 0) break;
  if (Date.now() > deadline) throw new Error('jobs or deliveries still open after 10 minutes');
  await sleep(500);
}
killServer();
const seconds = (Date.now() - t0) / 1000;

// ---- the figures ----------------------------------------------------------------------------------
const db = probe.db;
const jobs = await db.selectFrom('jobs').selectAll().where('account_id', '=', account.id).execute();
const ledger = await db.selectFrom('credit_ledger').selectAll().where('account_id', '=', account.id).execute();
const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
const balance = await db
  .selectFrom('balances')
  .select('balance_seconds')
  .where('account_id', '=', account.id)
  .executeTakeFirstOrThrow();
const uploadRows = await db.selectFrom('uploads').select('status').where('account_id', '=', account.id).execute();
const uploadsDone = uploadRows.filter((u) => u.status === 'uploaded').length;

const problems: string[] = [];
const intended = new Set(intents.map((i) => i.jobId));
const extra = jobs.filter((j) => !intended.has(j.id));
if (extra.length) problems.push(`${extra.length} job(s) created beyond the client's intents (duplicates)`);
let completed = 0;
let failed = 0;
for (const job of jobs) {
  if (job.status === 'COMPLETED') completed++;
  else if (job.status === 'FAILED') failed++;
  else problems.push(`job ${job.id} ended ${job.status}`);
  const moves = ledger.filter((l) => l.job_id === job.id);
  const holds = moves.filter((l) => l.kind === 'hold');
  const settles = moves.filter((l) => l.kind === 'charge' || l.kind === 'release');
  if (holds.length !== 1 || settles.length !== 1) {
    problems.push(`job ${job.id}: ${holds.length} hold(s), ${settles.length} settlement(s)`);
  }
  const charge = moves.find((l) => l.kind === 'charge');
  if ((charge?.seconds ?? 0) !== (job.credits_charged ?? 0)) {
    problems.push(`job ${job.id}: charged ${job.credits_charged}, ledger ${charge?.seconds ?? 0}`);
  }
}
const sumDelta = ledger.reduce((s, l) => s + l.delta_seconds, 0);
if (sumDelta !== balance.balance_seconds)
  problems.push(`ledger sums to ${sumDelta}, balance is ${balance.balance_seconds}`);
const charged = jobs.reduce((s, j) => s + (j.credits_charged ?? 0), 0);
if (100_000 - charged !== balance.balance_seconds)
  problems.push(`balance ${balance.balance_seconds} != 100000 - ${charged}`);

const seen = new Map<string, number>();
for (const r of received) seen.set(`${r.jobId} ${r.event}`, (seen.get(`${r.jobId} ${r.event}`) ?? 0) + 1);
// A delivery cut by a kill is sent again after the restart (our crash is not the receiver's
// failure), so a receiver may see that event twice: a repeat, byte-identical, never a loss.
const repeats = [...seen.values()].filter((n) => n > 1).length;
let lost = 0;
for (const job of jobs.filter((j) => j.kind === 'stem')) {
  const event = job.status === 'COMPLETED' ? 'job.completed' : 'job.failed';
  const row = deliveries.find((d) => d.job_id === job.id && d.event === event);
  if (!row) {
    problems.push(`job ${job.id}: no ${event} in the outbox`);
    continue;
  }
  if (!seen.has(`${job.id} ${event}`) || row.status !== 'done' || row.response_status !== 200) lost++;
}
if (lost) problems.push(`${lost} event(s) not delivered`);
if (repeats > kills.length) problems.push(`${repeats} repeated events for ${kills.length} kills`);
const retries = intents.reduce((s, i) => s + i.retries, 0);
const replays = intents.reduce((s, i) => s + i.replays, 0);
console.log(
  `${kills.length} kill -9 (ms after each start; -1: aimed at a delivery being sent): ${kills.join(', ')}; total ${seconds.toFixed(0)} s`,
);
console.log(
  `kills that hit: ${killedDuring.requests} with client requests in flight, ${killedDuring.processing} with a job PROCESSING, ${killedDuring.deliveries} with a delivery pending or sending`,
);
console.log(`client: ${INTENTS} intents, ${retries} retried requests, ${replays} answers replayed by Idempotency-Key`);
// An upload cut by a kill leaves a pending row (never billed); its retry, once the key's lock ran
// out, stores the file again. Jobs, not uploads, carry credits.
console.log(
  `uploads: ${uploadRows.length} rows for ${INTENTS} intents, ${uploadsDone} stored, ${uploadRows.length - uploadsDone} left pending by a kill`,
);
console.log(
  `jobs: ${jobs.length} created for ${INTENTS} intents, ${completed} COMPLETED, ${failed} FAILED, ${extra.length} duplicate(s)`,
);
console.log(
  `credits: ${ledger.length} ledger rows, ${charged} s charged, balance ${balance.balance_seconds} s, ledger sum ${sumDelta} s`,
);
console.log(
  `webhooks: ${deliveries.length} outbox rows, ${received.length} received, ${repeats} event(s) repeated after a kill cut their request, ${lost} lost`,
);
console.log(problems.length ? `INVARIANTS BROKEN:\n  ${problems.join('\n  ')}` : 'all invariants hold');

await probe.close();
receiver.close();
await rm(dataDir, { recursive: true, force: true });
process.exit(problems.length ? 1 : 0);
