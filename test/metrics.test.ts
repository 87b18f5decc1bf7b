import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startTestServer, type TestServer } from './helpers/server.ts';
import { uploadFile, waitForJob } from './helpers/jobs.ts';
import { startReceiver, type Receiver } from './helpers/webhook-receiver.ts';
import { promtoolCheck, sampleValue, startPrometheus, type PrometheusServer } from './helpers/prometheus.ts';
import { sharedPath } from '../support/shared.ts';
import { startWorkers, type Workers } from '../src/worker/start.ts';
import { findJob } from '../src/store/jobs.ts';
import { createEngines } from '../src/engines/create-engines.ts';
import type { Engines } from '../src/engines/engines.ts';

/**
 * Issue 30, item 1: `/metrics` in the Prometheus text format, behind METRICS_TOKEN, checked with
 * Debian's promtool and scraped by a real Prometheus server, on the embedded deployment with a real
 * separation job.
 */
describe('Prometheus metrics, embedded: token, exposition, a real job, a real Prometheus', () => {
  const token = randomBytes(24).toString('hex');
  let s: TestServer;
  let workers: Workers | undefined;
  let receiver: Receiver;
  let prometheus: PrometheusServer | undefined;
  let user: { id: string; key: string };
  let jobId: string;
  let held: number;

  const scrape = (auth: string | null = `Bearer ${token}`) =>
    fetch(`${s.base}/metrics`, { headers: auth ? { authorization: auth } : {} });
  const body = async () => {
    const res = await scrape();
    expect(res.status).toBe(200);
    return res.text();
  };

  beforeAll(async () => {
    receiver = await startReceiver();
    s = await startTestServer('sqlite', {
      METRICS_TOKEN: token,
      STEMFORGE_MODELS_DIR: sharedPath('models'),
      RATE_LIMIT_PER_MINUTE: '100000',
      ALLOW_PRIVATE_URLS: 'true',
    });
    user = await s.newAccount(300);
  });
  afterAll(async () => {
    await prometheus?.close();
    await workers?.stop();
    await s?.close();
    await receiver?.close();
  });

  test('without the token, with a wrong one or another scheme: 401 in the contract body', async () => {
    for (const auth of [null, 'Bearer wrong-token-of-some-length', `Basic ${token}`, `Bearer ${token}x`, token]) {
      const res = await scrape(auth);
      expect(res.status, String(auth)).toBe(401);
      expect(res.headers.get('content-type')).toContain('application/json');
      const { error }: any = await res.json();
      expect(error.code).toBe('METRICS_TOKEN_INVALID');
      expect(error.message).not.toContain(token);
    }
  });

  test('before any job, every job counter is exported at 0 for each kind and tier', async () => {
    const text = await body();
    for (const name of [
      'stemforge_jobs_completed_total',
      'stemforge_jobs_failed_total',
      'stemforge_jobs_created_total',
    ]) {
      for (const tier of ['FAST', 'BALANCED', 'BEST']) expect(sampleValue(text, name, { kind: 'stem', tier })).toBe(0);
      expect(sampleValue(text, name, { kind: 'denoise', tier: 'none' })).toBe(0);
    }
    expect(sampleValue(text, 'stemforge_webhook_deliveries_total', { outcome: 'failed' })).toBe(0);
    expect(sampleValue(text, 'stemforge_dependency_up', { dependency: 'database' })).toBe(1);
  });

  test('a job waiting for a worker shows in the queue depth and the oldest wait; creation counts its hold', async () => {
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'f.wav');
    const res = await s.api('/v1/jobs', {
      key: user.key,
      method: 'POST',
      json: {
        uploadKey: upload,
        outputType: 'VOCALS',
        quality: 'FAST',
        outputFormat: 'WAV',
        callbackUrl: receiver.url('/hook'),
      },
    });
    expect(res.status).toBe(201);
    const created: any = await res.json();
    jobId = created.id;
    held = created.creditsRequired;
    await new Promise((r) => setTimeout(r, 1200));
    const text = await body();
    expect(sampleValue(text, 'stemforge_queue_depth', { queue: 'inference' })).toBe(1);
    expect(sampleValue(text, 'stemforge_queue_depth', { queue: 'download' })).toBe(0);
    expect(sampleValue(text, 'stemforge_queue_oldest_waiting_seconds', { queue: 'inference' })).toBeGreaterThan(1);
    expect(sampleValue(text, 'stemforge_jobs_created_total', { kind: 'stem', tier: 'FAST' })).toBe(1);
    expect(sampleValue(text, 'stemforge_credits_held_seconds_total')).toBe(held);
  });

  test('the finished job shows in the job counters, the stage and RTF histograms, credits and webhooks', async () => {
    workers = await startWorkers(s.rt);
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${jobId}`, 240_000);
    expect(job.status).toBe('COMPLETED');
    await receiver.waitFor('/hook', 1, 30_000);
    // The delivery is recorded (and counted) just after the receiver answers.
    let text = '';
    for (let i = 0; i < 50; i++) {
      text = await body();
      if (sampleValue(text, 'stemforge_webhook_deliveries_total', { outcome: 'sent' }) === 1) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(sampleValue(text, 'stemforge_webhook_deliveries_total', { outcome: 'sent' })).toBe(1);
    expect(sampleValue(text, 'stemforge_jobs_completed_total', { kind: 'stem', tier: 'FAST' })).toBe(1);
    expect(sampleValue(text, 'stemforge_jobs_failed_total', { kind: 'stem', tier: 'FAST' })).toBe(0);
    // The separation process (kept warm for the next job) is counted, not only this process.
    const memory = (role: string) => sampleValue(text, 'stemforge_processes_resident_memory_bytes', { role })!;
    expect(memory('separation')).toBeGreaterThan(200e6);
    expect(memory('main')).toBeGreaterThan(0);
    expect(sampleValue(text, 'stemforge_queue_depth', { queue: 'inference' })).toBe(0);
    expect(sampleValue(text, 'stemforge_queue_oldest_waiting_seconds', { queue: 'inference' })).toBe(0);
    const stage = { kind: 'stem', stage: 'inference', outcome: 'completed' };
    expect(sampleValue(text, 'stemforge_job_stage_duration_seconds_count', stage)).toBe(1);
    const stageSeconds = sampleValue(text, 'stemforge_job_stage_duration_seconds_sum', stage)!;
    expect(stageSeconds).toBeGreaterThan(0.5);
    expect(sampleValue(text, 'stemforge_job_stage_duration_seconds_bucket', { ...stage, le: '+Inf' })).toBe(1);
    expect(sampleValue(text, 'stemforge_job_duration_seconds_count', { kind: 'stem', status: 'COMPLETED' })).toBe(1);
    expect(sampleValue(text, 'stemforge_job_queue_wait_seconds_count', { kind: 'stem', stage: 'inference' })).toBe(1);
    // The separation's real-time factor: its time over the 7 s clip's, less than the whole stage's.
    const rtf = { tier: 'FAST', model: 'htdemucs' };
    expect(sampleValue(text, 'stemforge_separation_real_time_factor_ratio_count', rtf)).toBe(1);
    const ratio = sampleValue(text, 'stemforge_separation_real_time_factor_ratio_sum', rtf)!;
    expect(ratio).toBeGreaterThan(0);
    const row = await findJob(s.rt.db, jobId);
    expect(ratio).toBeLessThan(stageSeconds / row!.duration_seconds!);
    expect(sampleValue(text, 'stemforge_credits_charged_seconds_total')).toBe(job.creditsCharged);
    expect(job.creditsCharged).toBeGreaterThan(0);
    expect(sampleValue(text, 'stemforge_worker_model_available', { model: 'htdemucs' })).toBe(1);
    expect(sampleValue(text, 'stemforge_worker_concurrency', { stage: 'inference' })).toBe(1);
    expect(sampleValue(text, 'stemforge_job_stages_running', { kind: 'stem', stage: 'inference' })).toBe(0);
    // Requests by route pattern, never the job's own path.
    const polls = sampleValue(text, 'stemforge_http_requests_total', {
      method: 'GET',
      route: '/v1/jobs/:id',
      status: '200',
    });
    expect(polls).toBeGreaterThan(0);
    expect(text).not.toContain(jobId);
    expect(text).not.toContain(user.id);
    // Node's process metrics, under the same prefix.
    expect(sampleValue(text, 'stemforge_process_resident_memory_bytes')).toBeGreaterThan(0);
    for (const line of text.split('\n')) {
      if (line && !line.startsWith('#')) expect(line.startsWith('stemforge_'), line).toBe(true);
    }
  });

  test('promtool check metrics accepts the exposition', async () => {
    const text = await body();
    const { status, output } = promtoolCheck(text);
    expect(output).toBe('');
    expect(status).toBe(0);
    // The checker does fail: a counter without its _total suffix is refused.
    expect(promtoolCheck('# HELP bad_counter x\n# TYPE bad_counter counter\nbad_counter 1\n').status).not.toBe(0);
  });

  test('a real Prometheus server scrapes it with the bearer token and answers PromQL about the job', async () => {
    const target = new URL(s.base).host;
    prometheus = await startPrometheus([
      { name: 'stemforge', targets: [target], token },
      { name: 'stemforge-no-token', targets: [target] },
    ]);
    const done = await prometheus.waitFor('sum by (kind) ({__name__=~"stemforge_.*job.*_total", kind="stem"})', (r) =>
      r.some((x) => Number(x.value[1]) >= 1),
    );
    expect(done[0]?.metric.kind).toBe('stem');
    const completed = await prometheus.query('stemforge_jobs_completed_total{job="stemforge"}');
    // Every kind and tier is there from the start, at 0 but for the job's.
    expect(completed).toHaveLength(10);
    const counted = completed.filter((x) => x.value[1] !== '0');
    expect(counted.map((x) => [x.metric.kind, x.metric.tier, x.value[1]])).toEqual([['stem', 'FAST', '1']]);
    // Durations are histograms in seconds: quantiles come out of their buckets.
    const p50 = await prometheus.query(
      'histogram_quantile(0.5, sum by (le) (stemforge_job_stage_duration_seconds_bucket{job="stemforge"}))',
    );
    expect(Number(p50[0]?.value[1])).toBeGreaterThan(0);
    const meta: any = await (
      await fetch(`${prometheus.base}/api/v1/metadata?metric=stemforge_job_stage_duration_seconds`)
    ).json();
    expect(meta.data.stemforge_job_stage_duration_seconds[0].type).toBe('histogram');
    const depth = await prometheus.query('stemforge_queue_depth{job="stemforge"}');
    expect(depth.map((x) => x.metric.queue).sort()).toEqual(['download', 'inference']);
    // The scrape without the token is refused: its target is down.
    const up = await prometheus.waitFor('up', (r) => r.length === 2);
    const byJob = Object.fromEntries(up.map((x) => [x.metric.job, x.value[1]]));
    expect(byJob).toEqual({ stemforge: '1', 'stemforge-no-token': '0' });
  });

  test("the Grafana dashboard's queries parse and run on that Prometheus", async () => {
    const dashboard = JSON.parse(
      await readFile(join(import.meta.dirname, '..', 'docs', 'grafana-dashboard.json'), 'utf8'),
    );
    const exprs: string[] = dashboard.panels.flatMap((p: any) => (p.targets ?? []).map((t: any) => t.expr));
    expect(exprs.length).toBeGreaterThan(20);
    for (const expr of exprs) await prometheus!.query(expr); // throws on a query Prometheus refuses
    // And they find data: the queue panel's series exist.
    // (Waited for: a scrape slower than its 1 s timeout on a loaded machine leaves the series stale.)
    await prometheus!.waitFor('max by (queue) (stemforge_queue_depth)', (r) => r.length === 2);
  });
});

describe('Prometheus metrics of failures: retries, a failed job, a cancelled one, their released credits', () => {
  const token = randomBytes(24).toString('hex');
  let s: TestServer;
  let workers: Workers | undefined;
  afterAll(async () => {
    await workers?.stop();
    await s?.close();
  });

  test('each is counted once, by kind and tier, with the seconds it gave back', async () => {
    const failing = (config: any): Engines => ({
      ...createEngines(config),
      separate: async () => {
        throw new Error('simulated inference failure');
      },
    });
    s = await startTestServer(
      'sqlite',
      { METRICS_TOKEN: token, JOB_MAX_ATTEMPTS: '2', JOB_RETRY_BASE_MS: '50', RATE_LIMIT_PER_MINUTE: '100000' },
      {},
      { engines: failing },
    );
    const user = await s.newAccount(300);
    const upload = await uploadFile(s, user.key, sharedPath('audio', 'musdb-falcon69', 'mixture.wav'), 'f.wav');
    const create = async () => {
      const res = await s.api('/v1/jobs', {
        key: user.key,
        method: 'POST',
        json: { uploadKey: upload, outputType: 'VOCALS', quality: 'BEST' },
      });
      expect(res.status).toBe(201);
      return (await res.json()) as any;
    };
    // Cancelled before any worker runs.
    const cancelled = await create();
    expect((await s.api(`/v1/jobs/${cancelled.id}/cancel`, { key: user.key, method: 'POST' })).status).toBe(200);
    workers = await startWorkers(s.rt);
    const failed = await create();
    const { job } = await waitForJob(s, user.key, `/v1/jobs/${failed.id}`, 60_000);
    expect(job.status).toBe('FAILED');

    const res = await fetch(`${s.base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    const text = await res.text();
    const labels = { kind: 'stem', tier: 'BEST' };
    expect(sampleValue(text, 'stemforge_jobs_created_total', labels)).toBe(2);
    expect(sampleValue(text, 'stemforge_jobs_failed_total', labels)).toBe(1);
    expect(sampleValue(text, 'stemforge_jobs_completed_total', labels)).toBe(0);
    expect(sampleValue(text, 'stemforge_job_attempts_retried_total', { kind: 'stem', stage: 'inference' })).toBe(1);
    const stage = { kind: 'stem', stage: 'inference' };
    expect(sampleValue(text, 'stemforge_job_stage_duration_seconds_count', { ...stage, outcome: 'retried' })).toBe(1);
    expect(sampleValue(text, 'stemforge_job_stage_duration_seconds_count', { ...stage, outcome: 'failed' })).toBe(1);
    expect(sampleValue(text, 'stemforge_job_duration_seconds_count', { ...labels, status: 'FAILED' })).toBe(1);
    expect(sampleValue(text, 'stemforge_credits_held_seconds_total')).toBe(
      cancelled.creditsRequired + failed.creditsRequired,
    );
    expect(sampleValue(text, 'stemforge_credits_released_seconds_total', { reason: 'cancelled' })).toBe(
      cancelled.creditsRequired,
    );
    expect(sampleValue(text, 'stemforge_credits_released_seconds_total', { reason: 'failed' })).toBe(
      failed.creditsRequired,
    );
    expect(sampleValue(text, 'stemforge_credits_charged_seconds_total')).toBe(0);
  });
});

describe('Prometheus metrics, off (no METRICS_TOKEN)', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer('sqlite');
  });
  afterAll(async () => {
    await s?.close();
  });

  test('/metrics answers 404 in the contract body, not the dashboard page, token or not', async () => {
    for (const headers of [{}, { authorization: 'Bearer anything-at-all-here' }, { accept: 'text/html' }]) {
      const res = await fetch(`${s.base}/metrics`, { headers });
      expect(res.status).toBe(404);
      expect(res.headers.get('content-type')).toContain('application/json');
      const { error }: any = await res.json();
      expect(error.code).toBe('NOT_FOUND');
      expect(error.message).toContain('METRICS_TOKEN');
    }
  });
});

describe('an idle fleet: every dashboard panel shows a value, not "No data"', () => {
  const token = randomBytes(24).toString('hex');
  let s: TestServer;
  let workers: Workers | undefined;
  let prometheus: PrometheusServer | undefined;
  afterAll(async () => {
    await prometheus?.close();
    await workers?.stop();
    await s?.close();
  });

  test('with no job ever run, each query finds series with numbers (quantile panels say why they are empty)', async () => {
    s = await startTestServer('sqlite', { METRICS_TOKEN: token, STEMFORGE_MODELS_DIR: sharedPath('models') });
    workers = await startWorkers(s.rt);
    prometheus = await startPrometheus([{ name: 'stemforge', targets: [new URL(s.base).host], token }]);
    // rate() needs two scrapes of each series.
    await prometheus.waitFor('sum_over_time(up[1m])', (r) => Number(r[0]?.value[1]) >= 3);
    const dashboard = JSON.parse(
      await readFile(join(import.meta.dirname, '..', 'docs', 'grafana-dashboard.json'), 'utf8'),
    );
    const empty: string[] = [];
    for (const panel of dashboard.panels.filter((p: any) => p.type !== 'row')) {
      // A quantile of no durations has no value; such a panel shows its own words instead.
      if (panel.fieldConfig.defaults.noValue) continue;
      // A target of the other deployment finds nothing (the fleet gauges are scale-out's); the panel
      // shows the others'.
      const results = await Promise.all(panel.targets.map((t: any) => prometheus!.query(t.expr)));
      const values = results.flat().map((x) => Number(x.value[1]));
      if (values.length === 0 || values.some((v) => !Number.isFinite(v))) {
        empty.push(`${panel.title}: ${JSON.stringify(results)}`);
      }
    }
    expect(empty).toEqual([]);
    const failureRatio = await prometheus.query(
      dashboard.panels.find((p: any) => p.title === 'Failure ratio by kind and tier').targets[0].expr,
    );
    expect(failureRatio.map((x) => Number(x.value[1]))).toEqual(Array(10).fill(0));
  });
});
