/**
 * Long jobs and deaths (issue 40): the same 5-minute song as a job of the real embedded
 * `stemforge serve`, run without a death and with the server killed (SIGKILL) three times during
 * its separation (at a quarter, a half and three quarters of its segments) and started again at
 * once, each time; the job then resumes from its last finished segment. Runs alternate (plain,
 * killed, plain, killed, ...); each is timed from the job's creation to its completion (the
 * restarts, model loads and replays included) in a fresh data folder, and the stems of every run
 * are compared byte for byte with the first plain run's. Prints each run, the medians and their
 * ratio (target: at most 1.5), and the CPU.
 *
 *   node bin/run-ts.mjs bench/separate-resume.ts [--pairs 2] [--quality FAST] [--seconds 300]
 *
 * The input is the shared music tracks joined end to end and cut to `--seconds`.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { readdir, readFile, rm } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';

const run = promisify(execFile);
const repo = resolve(import.meta.dirname, '..');
const { values: args } = parseArgs({
  options: {
    pairs: { type: 'string', default: '2' },
    quality: { type: 'string', default: 'FAST' },
    seconds: { type: 'string', default: '300' },
  },
});
const PAIRS = Number(args.pairs);
const SECONDS = Number(args.seconds);
const KILLS_AT = [0.25, 0.5, 0.75];
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const work = mkdtempSync(join(tmpdir(), 'stemforge-resume-bench-'));

// ---- the input: the shared tracks end to end, cut to length --------------------------------------
const music = sharedPath('audio', 'music');
const tracks = (await readdir(music)).filter((f) => f.endsWith('.ogg')).sort();
const input = join(work, 'song.flac');
const loops = tracks.flatMap(() => tracks).flatMap((t) => ['-i', join(music, t)]);
const count = loops.length / 2;
await run('ffmpeg', [
  '-nostdin',
  '-v',
  'error',
  ...loops,
  '-filter_complex',
  `${Array.from({ length: count }, (_, i) => `[${i}:a]aresample=44100,aformat=channel_layouts=stereo[a${i}];`).join('')}${Array.from({ length: count }, (_, i) => `[a${i}]`).join('')}concat=n=${count}:v=0:a=1[out]`,
  '-map',
  '[out]',
  '-t',
  String(SECONDS),
  '-c:a',
  'flac',
  input,
]);

// ---- one run: a fresh server and data folder, one job, optional kills ---------------------------
interface Run {
  kind: 'plain' | 'killed';
  seconds: number;
  resumedAt: number[];
  digest: string;
}

async function startServer(env: NodeJS.ProcessEnv): Promise<{ child: ChildProcess; out: () => string }> {
  const child = spawn(process.execPath, [join(repo, 'bin/stemforge.mjs'), 'serve'], {
    cwd: repo,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  await new Promise<void>((ok, fail) => {
    const onData = (d: Buffer) => {
      out += d.toString();
      if (out.includes('Stemforge listening')) ok();
    };
    child.stdout!.on('data', onData);
    child.stderr!.on('data', onData);
    child.once('exit', (code, signal) => fail(new Error(`server exited (${code ?? signal}): ${out}`)));
  });
  return { child, out: () => out };
}

async function kill(child: ChildProcess): Promise<void> {
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGKILL');
  await exited;
}

async function oneRun(kind: Run['kind']): Promise<Run> {
  const dataDir = mkdtempSync(join(work, 'data-'));
  const port = 20_000 + Math.floor(Math.random() * 20_000);
  const base = `http://127.0.0.1:${port}`;
  const env = {
    ...process.env,
    STEMFORGE_DATA_DIR: dataDir,
    PORT: String(port),
    HOST: '127.0.0.1',
    STEMFORGE_MODELS_DIR: sharedPath('models'),
    FREE_CREDIT_SECONDS: '100000',
    MAX_FILE_SIZE_MB: '500',
    RATE_LIMIT_PER_MINUTE: '100000',
    LOG_LEVEL: 'info',
  };
  let server = await startServer(env);
  const key = /API key: (sk_live_\S+)/.exec(server.out())?.[1];
  if (!key) throw new Error('no API key printed');
  const api = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    fetch(`${base}/v1${path}`, {
      ...init,
      headers: { authorization: `Bearer ${key}`, ...(init.json ? { 'content-type': 'application/json' } : {}) },
      body: init.json ? JSON.stringify(init.json) : init.body,
    });
  const grant: any = await (await api('/upload', { method: 'POST', json: { filename: 'song.flac' } })).json();
  const put = await fetch(grant.uploadUrl, {
    method: 'PUT',
    headers: { 'content-type': grant.contentType },
    body: await readFile(input),
  });
  if (put.status !== 200) throw new Error(`upload failed: ${put.status}`);
  const started = performance.now();
  const res = await api('/jobs', {
    method: 'POST',
    json: { uploadKey: grant.uploadKey, outputType: 'BOTH', quality: args.quality, outputFormat: 'MP3' },
  });
  if (res.status !== 201) throw new Error(`job refused: ${res.status} ${await res.text()}`);
  const { id } = (await res.json()) as { id: string };
  const outs: string[] = [];
  const kills = kind === 'killed' ? [...KILLS_AT] : [];
  let job: any;
  for (;;) {
    job = await (await api(`/jobs/${id}`)).json();
    if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
    const next = kills[0];
    // Separating spans progress 15-80; creep never reaches a segment's value before it is done.
    if (next !== undefined && job.progressPhase === 'separating' && job.progress >= 15 + next * 65) {
      kills.shift();
      await kill(server.child);
      outs.push(server.out());
      server = await startServer(env);
    }
    await sleep(200);
  }
  const seconds = (performance.now() - started) / 1000;
  if (job.status !== 'COMPLETED') throw new Error(`job failed: ${JSON.stringify(job)}`);
  const hash = createHash('sha256');
  for (const stem of Object.keys(job.outputs).sort()) {
    hash.update(Buffer.from(await (await fetch(job.outputs[stem].url)).arrayBuffer()));
  }
  outs.push(server.out());
  await kill(server.child);
  const resumedAt = outs
    .join('\n')
    .split('\n')
    .filter((l) => l.includes('separation resumes from its checkpoint'))
    .map((l) => JSON.parse(l).done as number);
  await rm(dataDir, { recursive: true, force: true });
  return { kind, seconds, resumedAt, digest: hash.digest('hex').slice(0, 16) };
}

// ---- alternate ------------------------------------------------------------------------------------
const runs: Run[] = [];
for (let i = 0; i < PAIRS; i++) {
  for (const kind of ['plain', 'killed'] as const) {
    const r = await oneRun(kind);
    runs.push(r);
    const where = r.resumedAt.length ? ` resumed at ${r.resumedAt.map((f) => f.toFixed(3)).join(', ')}` : '';
    console.log(`${kind.padEnd(6)} ${r.seconds.toFixed(1).padStart(7)} s  stems ${r.digest}${where}`);
  }
}
const plain = median(runs.filter((r) => r.kind === 'plain').map((r) => r.seconds));
const killed = median(runs.filter((r) => r.kind === 'killed').map((r) => r.seconds));
const same = runs.every((r) => r.digest === runs[0]!.digest);
console.log(`\n${SECONDS} s song, ${args.quality}, ${KILLS_AT.length} kills per killed run, ${PAIRS} pairs`);
console.log(`median plain ${plain.toFixed(1)} s, killed ${killed.toFixed(1)} s: ratio ${(killed / plain).toFixed(2)}`);
console.log(`stems identical across all runs: ${same ? 'yes' : 'NO'}`);
console.log(`CPU: ${cpus()[0]?.model ?? 'unknown'} x ${cpus().length}`);
await rm(work, { recursive: true, force: true });
if (!same) process.exitCode = 1;
