/**
 * Crash-safety soak: the real `stemforge serve` (embedded: API, workers and webhook dispatcher in one
 * process) is killed with SIGKILL while a client uploads files, creates stem and denoise jobs (with
 * Idempotency-Key, retrying every failed or cut request as a real client does), jobs are processed
 * and webhooks are delivered. Kills come in two kinds:
 * - random moments (`--rounds`), which land on requests, processing and deliveries alike;
 * - aimed at phases (`--aimed`), in turn: a job `separating` (the separation process decodes and
 *   its ffmpeg encoders write the stems), `analysing`, `uploading` (writing its outputs into the
 *   disk store), and a delivery the receiver has read and holds unanswered. (The `encoding` phase,
 *   re-encoding the other stems after vocals are cleaned, lasts tens of milliseconds on these clips:
 *   too short to aim at.) Each
 *   aimed kill is checked to have landed: the job's row still shows that phase after the kill, or
 *   the receiver was holding the request when it died.
 * After every kill the temporary places (`tmp/`, `work/`, `blobs/tmp`) are measured before the
 * restart; after the last one the server runs until every job is terminal and every event sent.
 * Then the figures are read from the API, the database, the data folder and the receiver: every
 * intended job exists once and finished once, one hold and one settlement each, balance = ledger
 * sum, every output decodes at the input's length, every event answered 200 with the webhook still
 * active, and nothing left in any temporary place.
 *
 *   node bin/run-ts.mjs bench/crash-soak.ts [--rounds 6] [--aimed 8] [--intents 12] [--seed 42]
 *
 * Prints figures; exits non-zero when an invariant is broken (a bench asserts no timing).
 */
import { spawn, execFile, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync } from 'node:fs';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir, cpus } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { connectDatabase } from '../src/store/db.ts';
import { createAccount } from '../src/store/accounts.ts';
import { createApiKey } from '../src/store/api-keys.ts';
import { rng } from '../support/fixtures/synth-voices.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const shared = resolve(process.env.STEMFORGE_SHARED ?? join(repo, '../shared'));
const { values: args } = parseArgs({
  options: {
    rounds: { type: 'string', default: '6' },
    aimed: { type: 'string', default: '8' },
    intents: { type: 'string', default: '16' },
    seed: { type: 'string', default: '42' },
  },
});
const ROUNDS = Number(args.rounds);
const AIMED = Number(args.aimed);
const INTENTS = Number(args.intents);
// mulberry32, seeded: a run can be repeated.
const random = rng(Number(args.seed));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-soak-'));
const port = 20_000 + Math.floor(Math.random() * 20_000);
const base = `http://127.0.0.1:${port}`;

// ---- webhook receiver: records every delivery; answers within a second, or holds it -------------
const received: Array<{ jobId: string; event: string; at: number; answered: boolean }> = [];
let holding = false;
const held: Array<{ res: ServerResponse; entry: { answered: boolean; at: number }; open: boolean }> = [];
const receiver = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    let entry = { jobId: '?', event: '?', at: Date.now(), answered: false };
    try {
      const body = JSON.parse(Buffer.concat(chunks).toString()) as { event: string; data: { jobId: string } };
      entry = { jobId: body.data.jobId, event: body.event, at: Date.now(), answered: false };
      received.push(entry);
    } catch {
      // not a webhook
    }
    if (holding) {
      // Read and not answered: a kill now cuts a delivery the receiver may already have acted on.
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
/** Stops holding: what the live server is sending now is answered. */
function releaseHeld(): void {
  holding = false;
  for (const h of held.splice(0)) {
    if (!h.open) continue;
    h.entry.answered = true;
    h.res.writeHead(200).end('ok');
  }
}
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
  // Kills come every few seconds here, far more often than real crashes, and several land on the
  // same job; the bound (default 3) is for an input that crashes the process (jobs-crash-bound test).
  JOB_MAX_CRASHES: '10',
  WEBHOOK_TIMEOUT_MS: '10000',
  LOG_LEVEL: 'error',
};
let server: ChildProcess | undefined;
let serverStartedAt = 0;
async function startServer(): Promise<void> {
  serverStartedAt = Date.now();
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
async function killServer(): Promise<void> {
  const child = server;
  server = undefined;
  if (!child || child.exitCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
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
  kind: i % 3 === 2 ? 'denoise' : 'stem',
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
      ? // Cleaned vocals on every other stem job: its other stems are encoded in a phase of their own.
        {
          uploadKey: uploaded.uploadKey,
          outputType: 'VOCALS',
          quality: 'FAST',
          outputFormat: 'WAV',
          denoiseVocals: i % 2 === 0,
        }
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

// ---- what a kill leaves in the temporary places ---------------------------------------------------
const TEMP_PLACES = ['tmp', 'work', join('blobs', 'tmp')];
async function leftovers(): Promise<{ files: number; bytes: number; names: string[] }> {
  let files = 0;
  let bytes = 0;
  const names: string[] = [];
  const walk = async (dir: string, place: string): Promise<void> => {
    for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) await walk(path, place);
      else {
        files++;
        bytes += (await stat(path).catch(() => ({ size: 0 }))).size;
        names.push(join(place, entry.name));
      }
    }
  };
  for (const place of TEMP_PLACES) await walk(join(dataDir, place), place);
  return { files, bytes, names };
}

// ---- the soak -------------------------------------------------------------------------------------
const cpu = (await run('sh', ['-c', "lscpu | grep 'Model name' | sed 's/.*: *//'"])).stdout.trim();
console.log(
  `crash soak: ${ROUNDS} random + ${AIMED} aimed kills, ${INTENTS} intents, seed ${args.seed}; ${cpu}, ${cpus().length} CPUs`,
);
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
const watch = await connectDatabase(dbUrl);
let clientsDone = false;
const clients = (async () => {
  // Two intents at a time, as two client threads would.
  let next = 0;
  await Promise.all(
    [0, 1].map(async () => {
      while (next < intents.length) {
        const i = next++;
        // Paced so that jobs are in flight across all the kills, not only before the first: a new
        // intent once fewer than two jobs are open.
        while ((await openJobs()) >= 2) await sleep(200);
        await sleep(random() * 3_000);
        await runIntent(intents[i]!, i);
      }
    }),
  );
  clientsDone = true;
})();

type Phase = 'separating' | 'analysing' | 'uploading' | 'webhook held';
interface Kill {
  aim: Phase | 'random';
  landed: boolean;
  files: number;
  bytes: number;
}
const killLog: Kill[] = [];
const killedDuring = { requests: 0, processing: 0, deliveries: 0 };

/** Kills the server, measures what it left in the temporary places, starts it again. */
const killTimes: number[] = [];
async function killAndRestart(aim: Kill['aim'], landed: () => Promise<boolean>): Promise<void> {
  killTimes.push(Date.now());
  await killServer();
  const left = await leftovers();
  killLog.push({ aim, landed: await landed(), files: left.files, bytes: left.bytes });
  releaseHeld();
  await sleep(100 + random() * 400);
  await startServer();
}

async function randomKill(): Promise<void> {
  await sleep(500 + random() * 5_000);
  const processing = await watch.db.selectFrom('jobs').select('id').where('status', '=', 'PROCESSING').execute();
  const sending = await watch.db
    .selectFrom('webhook_deliveries')
    .select('id')
    .where('status', 'in', ['pending', 'sending'])
    .execute();
  if (inFlight > 0) killedDuring.requests++;
  if (processing.length > 0) killedDuring.processing++;
  if (sending.length > 0) killedDuring.deliveries++;
  await killAndRestart('random', async () => true);
}

/**
 * Waits (up to a minute) for the phase and kills then. A job is aimed at only while it has crashed
 * fewer than twice, so the aiming itself does not pile every crash on one job.
 */
async function aimedKill(aim: Phase): Promise<boolean> {
  const until = Date.now() + 60_000;
  let hit: (() => Promise<boolean>) | null = null;
  if (aim === 'webhook held') holding = true;
  let checked = Date.now();
  while (Date.now() < until && !hit) {
    if (clientsDone && Date.now() - checked > 1_000) {
      checked = Date.now();
      if ((await openJobs()) === 0) break; // nothing left to aim at
    }
    if (aim === 'webhook held') {
      const at = serverStartedAt;
      if (held.some((h) => h.open && h.entry.at >= at)) {
        hit = async () => held.some((h) => h.entry.at >= at);
      }
    } else {
      const running = await watch.db
        .selectFrom('jobs')
        .select(['id', 'crashes', 'progress_phase'])
        .where('status', '=', 'PROCESSING')
        .execute();
      for (const r of running) phasesSeen.add(r.progress_phase ?? 'none');
      const job = running.find((r) => r.progress_phase === aim && r.crashes < 2);
      if (job) {
        // Landed when the dead process left the job in that phase, under the same run.
        hit = async () => {
          const row = await watch.db
            .selectFrom('jobs')
            .select(['status', 'progress_phase', 'crashes'])
            .where('id', '=', job.id)
            .executeTakeFirstOrThrow();
          return row.status === 'PROCESSING' && row.progress_phase === aim && row.crashes === job.crashes;
        };
      }
    }
    if (!hit) await sleep(10);
  }
  if (!hit) {
    holding = false;
    return false;
  }
  await killAndRestart(aim, hit);
  return true;
}

// Random and aimed kills alternate, while the clients keep creating jobs.
const PHASES: Phase[] = ['separating', 'analysing', 'uploading', 'webhook held'];
const phasesSeen = new Set<string>();
let missed = 0;
for (let k = 0; k < Math.max(ROUNDS, AIMED); k++) {
  if (k < AIMED && !(await aimedKill(PHASES[k % PHASES.length]!))) missed++;
  if (k < ROUNDS) await randomKill();
}
releaseHeld();
await clients;
await watch.close();

async function openJobs(): Promise<number> {
  const open = await watch.db
    .selectFrom('jobs')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('status', 'in', ['PENDING', 'PROCESSING'])
    .executeTakeFirstOrThrow();
  return Number(open.n);
}

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
// A clean stop: what is left now was left by a kill and missed by every sweep.
server?.kill('SIGTERM');
if (server) await new Promise((r) => server!.once('exit', r));
server = undefined;
const seconds = (Date.now() - t0) / 1000;
const finalLeft = await leftovers();

// ---- the figures ----------------------------------------------------------------------------------
const db = probe.db;
const jobs = await db.selectFrom('jobs').selectAll().where('account_id', '=', account.id).execute();
const ledger = await db.selectFrom('credit_ledger').selectAll().where('account_id', '=', account.id).execute();
const deliveries = await db.selectFrom('webhook_deliveries').selectAll().where('webhook_id', '=', hook.id).execute();
const hookRow = await db.selectFrom('webhooks').selectAll().where('id', '=', hook.id).executeTakeFirstOrThrow();
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
let crashedOut = 0;
for (const job of jobs) {
  if (job.status === 'COMPLETED') completed++;
  else if (job.status === 'FAILED') failed++;
  else problems.push(`job ${job.id} ended ${job.status}`);
  if (job.error_code === 'JOB_CRASHED') crashedOut++;
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

// Outputs: every stored output of a completed job is there and decodes at the input's length.
let outputs = 0;
let outputsBad = 0;
for (const job of jobs.filter((j) => j.status === 'COMPLETED' && j.outputs_json)) {
  for (const out of Object.values(JSON.parse(job.outputs_json!) as Record<string, { key: string }>)) {
    outputs++;
    const path = join(dataDir, 'blobs', 'objects', out.key);
    const probed = await run('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path])
      .then((r) => Number(r.stdout.trim()))
      .catch(() => Number.NaN);
    if (!(Math.abs(probed - (job.duration_seconds ?? 0)) < 0.1)) {
      outputsBad++;
      problems.push(`job ${job.id}: output ${out.key.split('/').at(-1)} decodes to ${probed} s`);
    }
  }
}

// Webhooks: every stem job's event answered 200; a repeat only of a request a kill cut (between the
// receiver reading it, or even answering it, and our record of the answer).
const answered = new Map<string, number>();
const byEvent = new Map<string, number[]>();
for (const r of received) {
  const k = `${r.jobId} ${r.event}`;
  byEvent.set(k, [...(byEvent.get(k) ?? []), r.at]);
  if (r.answered) answered.set(k, (answered.get(k) ?? 0) + 1);
}
let repeats = 0;
for (const [k, times] of byEvent) {
  for (let i = 1; i < times.length; i++) {
    repeats++;
    if (!killTimes.some((t) => t >= times[i - 1]! && t <= times[i]!)) problems.push(`${k} repeated without a kill`);
  }
}
const answeredTwice = [...answered.values()].filter((n) => n > 1).length;
let lost = 0;
for (const job of jobs.filter((j) => j.kind === 'stem')) {
  const event = job.status === 'COMPLETED' ? 'job.completed' : 'job.failed';
  const row = deliveries.find((d) => d.job_id === job.id && d.event === event);
  if (!row) {
    problems.push(`job ${job.id}: no ${event} in the outbox`);
    continue;
  }
  if (!answered.has(`${job.id} ${event}`) || row.status !== 'done' || row.response_status !== 200) lost++;
}
if (lost) problems.push(`${lost} event(s) not delivered`);
if (hookRow.is_active !== 1 || hookRow.fail_count !== 0)
  problems.push(`webhook active ${hookRow.is_active}, failCount ${hookRow.fail_count}`);
if (finalLeft.files) problems.push(`left in temporary places: ${finalLeft.names.join(', ')}`);

const retries = intents.reduce((s, i) => s + i.retries, 0);
const replays = intents.reduce((s, i) => s + i.replays, 0);
const crashes = jobs.reduce((s, j) => s + j.crashes, 0);
const maxAttempts = Math.max(0, ...jobs.map((j) => j.attempts));
const mb = (b: number) => (b / 1e6).toFixed(1);
console.log(`phases seen while aiming: ${[...phasesSeen].join(', ') || 'none'}`);
console.log(`${killLog.length} kill -9 in ${seconds.toFixed(0)} s; ${missed} aimed kill(s) found no target in 60 s`);
console.log(
  `random kills: ${ROUNDS}, hitting ${killedDuring.requests} with client requests in flight, ${killedDuring.processing} with a job PROCESSING, ${killedDuring.deliveries} with a delivery pending or sending`,
);
console.log('aimed at            | kills | landed | left in tmp/, work/, blobs/tmp before the restart');
for (const aim of ['random', ...PHASES] as const) {
  const ks = killLog.filter((k) => k.aim === aim);
  if (!ks.length) continue;
  const files = ks.reduce((n, k) => n + k.files, 0);
  const bytes = ks.reduce((n, k) => n + k.bytes, 0);
  console.log(
    `${aim.padEnd(19)} | ${String(ks.length).padStart(5)} | ${String(ks.filter((k) => k.landed).length).padStart(6)} | ${files} files, ${mb(bytes)} MB`,
  );
}
console.log(`client: ${INTENTS} intents, ${retries} retried requests, ${replays} answers replayed by Idempotency-Key`);
// An upload cut by a kill leaves a pending row (never billed); its retry, once the key's lock ran
// out, stores the file again. Jobs, not uploads, carry credits.
console.log(
  `uploads: ${uploadRows.length} rows for ${INTENTS} intents, ${uploadsDone} stored, ${uploadRows.length - uploadsDone} left pending by a kill`,
);
console.log(
  `jobs: ${jobs.length} created for ${INTENTS} intents, ${completed} COMPLETED, ${failed} FAILED (${crashedOut} JOB_CRASHED), ${extra.length} duplicate(s); ${crashes} crash(es) counted, highest attempts ${maxAttempts}`,
);
console.log(
  `credits: ${ledger.length} ledger rows, ${charged} s charged, balance ${balance.balance_seconds} s, ledger sum ${sumDelta} s`,
);
console.log(`outputs: ${outputs} stored, ${outputsBad} missing or of the wrong length`);
console.log(
  `webhooks: ${deliveries.length} outbox rows, ${received.length} requests received, ${repeats} repeat(s) of a request a kill cut (${answeredTwice} of them answered 200 twice: the kill fell between the answer and its record), ${lost} lost; webhook active ${hookRow.is_active === 1}, failCount ${hookRow.fail_count}`,
);
console.log(`left in temporary places after the run: ${finalLeft.files} files, ${mb(finalLeft.bytes)} MB`);
console.log(problems.length ? `INVARIANTS BROKEN:\n  ${problems.join('\n  ')}` : 'all invariants hold');

await probe.close();
receiver.closeAllConnections();
receiver.close();
await rm(dataDir, { recursive: true, force: true });
process.exit(problems.length ? 1 : 0);
