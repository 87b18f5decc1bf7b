/**
 * API latency while a separation runs (embedded default: API and workers in one process).
 * Measures GET /v1/jobs/{id} and POST /v1/jobs with autocannon on loopback, first idle, then while
 * the worker separates a 60 s clip, and reports the event-loop delay seen during inference.
 *
 *   node bin/run-ts.mjs bench/api-latency.ts [--seconds 10]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import autocannon from 'autocannon';
import { loadConfig } from '../src/config.ts';
import { createRuntime } from '../src/runtime.ts';
import { buildApp } from '../src/app/build-app.ts';
import { startWorkers } from '../src/worker/start.ts';
import { createAccount } from '../src/store/accounts.ts';
import { createApiKey } from '../src/store/api-keys.ts';

const seconds = Number(process.argv[process.argv.indexOf('--seconds') + 1]) || 10;
const shared = resolve(process.env.STEMFORGE_SHARED ?? resolve(import.meta.dirname, '../../shared'));
const dataDir = mkdtempSync(join(tmpdir(), 'stemforge-bench-'));
const clip = join(dataDir, 'clip.wav');
execFileSync('ffmpeg', [
  '-v',
  'error',
  '-y',
  '-i',
  join(shared, 'audio/music/Kevin_MacLeod_-_Vibe_Ace.hq.ogg'),
  '-t',
  '60',
  clip,
]);

const config = loadConfig({
  STEMFORGE_DATA_DIR: dataDir,
  PORT: '18123',
  LOG_LEVEL: 'silent',
  RATE_LIMIT_PER_MINUTE: '100000000',
  STEMFORGE_MODELS_DIR: join(shared, 'models'),
});
const rt = await createRuntime(config);
const app = buildApp(rt, { logger: false });
await app.listen({ port: config.port, host: '127.0.0.1' });
const base = `http://127.0.0.1:${config.port}`;
const account = await createAccount(rt.db, 'bench@example.com', 10_000_000);
const { key } = await createApiKey(rt.db, account.id);
const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' };

const grant: any = await (
  await fetch(`${base}/v1/upload`, { method: 'POST', headers, body: JSON.stringify({ filename: 'clip.wav' }) })
).json();
await fetch(grant.uploadUrl, {
  method: 'PUT',
  headers: { 'content-type': grant.contentType },
  body: await readFile(clip),
});
const createBody = JSON.stringify({ uploadKey: grant.uploadKey, outputType: 'VOCALS', quality: 'FAST' });
const firstJob: any = await (await fetch(`${base}/v1/jobs`, { method: 'POST', headers, body: createBody })).json();

async function load(label: string, opts: autocannon.Options) {
  const r = await autocannon({ duration: seconds, connections: 8, headers, ...opts });
  const row = {
    scenario: label,
    'req/s': Math.round(r.requests.average),
    'p50 ms': r.latency.p50,
    'p99 ms': r.latency.p99,
    'max ms': r.latency.max,
    non2xx: r.non2xx,
    errors: r.errors,
  };
  console.log(JSON.stringify(row));
  return row;
}

const rows = [];
rows.push(await load('GET /v1/jobs/{id}, idle', { url: `${base}/v1/jobs/${firstJob.id}` }));

const workers = await startWorkers(rt);
// Wait until inference is running.
for (;;) {
  const j: any = await (await fetch(`${base}/v1/jobs/${firstJob.id}`, { headers })).json();
  if (j.status === 'PROCESSING' && j.progress >= 6) break;
  await new Promise((r) => setTimeout(r, 200));
}
const loop = monitorEventLoopDelay({ resolution: 10 });
loop.enable();
rows.push(await load('GET /v1/jobs/{id}, during separation', { url: `${base}/v1/jobs/${firstJob.id}` }));
rows.push(
  await load('POST /v1/jobs, during separation', {
    url: `${base}/v1/jobs`,
    method: 'POST',
    body: createBody,
    connections: 4,
  }),
);
loop.disable();
const status: any = await (await fetch(`${base}/v1/jobs/${firstJob.id}`, { headers })).json();
console.log(`separation still running during the load: status ${status.status}, progress ${status.progress}%`);
console.log(
  `event-loop delay during separation: p50 ${(loop.percentile(50) / 1e6).toFixed(1)} ms, p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`,
);
console.table(rows);
const idle = rows[0]!['p99 ms'];
console.log(`p99 ratio GET during separation / idle: ${(rows[1]!['p99 ms'] / Math.max(idle, 1)).toFixed(2)}`);

await workers.stop();
await app.close();
await rt.close();
await rm(dataDir, { recursive: true, force: true });
process.exit(0);
