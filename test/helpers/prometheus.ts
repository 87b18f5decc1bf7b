import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './server.ts';

/** Debian's `prometheus` package (`.ci/run` installs it). */
export const PROMTOOL = '/usr/bin/promtool';
export const PROMETHEUS = '/usr/bin/prometheus';

function requireBinary(path: string): void {
  if (!existsSync(path)) throw new Error(`${path} is missing: apt-get install prometheus (see .ci/run)`);
}

/** `promtool check metrics` over an exposition body: its exit status and what it printed. */
export function promtoolCheck(body: string): { status: number | null; output: string } {
  requireBinary(PROMTOOL);
  const r = spawnSync(PROMTOOL, ['check', 'metrics'], { input: body, encoding: 'utf8' });
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

export interface ScrapeJob {
  name: string;
  /** `host:port` targets. */
  targets: string[];
  /** The bearer token the scrape sends; absent: none. */
  token?: string;
}

export interface PrometheusServer {
  base: string;
  /** An instant query through the HTTP API: the result vector. */
  query(promql: string): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  /** Polls `query` until `accept` holds for its result (the scrapes run every second). */
  waitFor(
    promql: string,
    accept: (result: Array<{ metric: Record<string, string>; value: [number, string] }>) => boolean,
    timeoutMs?: number,
  ): Promise<Array<{ metric: Record<string, string>; value: [number, string] }>>;
  close(): Promise<void>;
}

/**
 * A real Prometheus server on 127.0.0.1 (random free port, its config and TSDB in a temp folder)
 * scraping the given jobs every second, bearer token in the scrape config as an operator writes it.
 */
export async function startPrometheus(jobs: ScrapeJob[]): Promise<PrometheusServer> {
  requireBinary(PROMETHEUS);
  const dir = await mkdtemp(join(tmpdir(), 'stemforge-prom-'));
  const port = await freePort();
  const config = [
    'global:',
    '  scrape_interval: 1s',
    '  scrape_timeout: 1s',
    'scrape_configs:',
    ...jobs.flatMap((j) => [
      `  - job_name: ${JSON.stringify(j.name)}`,
      '    metrics_path: /metrics',
      ...(j.token ? ['    authorization:', '      type: Bearer', `      credentials: ${JSON.stringify(j.token)}`] : []),
      '    static_configs:',
      `      - targets: ${JSON.stringify(j.targets)}`,
    ]),
  ].join('\n');
  await writeFile(join(dir, 'prometheus.yml'), `${config}\n`);
  const child: ChildProcess = spawn(
    PROMETHEUS,
    [
      `--config.file=${join(dir, 'prometheus.yml')}`,
      `--storage.tsdb.path=${join(dir, 'data')}`,
      `--web.listen-address=127.0.0.1:${port}`,
    ],
    { stdio: ['ignore', 'ignore', 'pipe'] },
  );
  let log = '';
  child.stderr?.on('data', (d: Buffer) => {
    log = (log + d.toString()).slice(-8000);
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 30_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`prometheus exited (${child.exitCode}): ${log}`);
    const ready = await fetch(`${base}/-/ready`).then(
      (r) => r.ok,
      () => false,
    );
    if (ready) break;
    if (Date.now() > deadline) throw new Error(`prometheus did not become ready: ${log}`);
    await new Promise((r) => setTimeout(r, 200));
  }
  const query: PrometheusServer['query'] = async (promql) => {
    const res = await fetch(`${base}/api/v1/query?query=${encodeURIComponent(promql)}`);
    const body: any = await res.json();
    if (body.status !== 'success') throw new Error(`query ${promql} failed: ${JSON.stringify(body)}`);
    return body.data.result;
  };
  return {
    base,
    query,
    async waitFor(promql, accept, timeoutMs = 30_000) {
      const until = Date.now() + timeoutMs;
      let last: Awaited<ReturnType<typeof query>> = [];
      while (Date.now() < until) {
        last = await query(promql);
        if (accept(last)) return last;
        await new Promise((r) => setTimeout(r, 500));
      }
      throw new Error(`prometheus: ${promql} never matched; last result ${JSON.stringify(last)}; log: ${log}`);
    },
    async close() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await new Promise((r) => child.once('exit', r));
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The value of one sample line of an exposition body (`name{labels} value`), or undefined. */
export function sampleValue(body: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of body.split('\n')) {
    if (line.startsWith('#')) continue;
    const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m || m[1] !== name) continue;
    const have = Object.fromEntries([...(m[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[3]);
  }
  return undefined;
}
