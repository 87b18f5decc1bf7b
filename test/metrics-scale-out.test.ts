import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { freePort } from './helpers/server.ts';
import { sharedPath } from '../support/shared.ts';
import { trimClip } from './helpers/denoise-clip.ts';
import { startScaleOut, type ScaleOut } from './helpers/scale-out.ts';
import { promtoolCheck, sampleValue, startPrometheus, type PrometheusServer } from './helpers/prometheus.ts';

/**
 * Issue 30: in scale-out every process serves its own metrics. The API process (`serve
 * --no-workers`) serves `/metrics` on its port; the worker process (`worker`) serves `/metrics` and
 * `/healthz` on METRICS_PORT; one Prometheus scrapes both, as docs/deploy.md tells an operator to.
 */
describe('metrics in scale-out: the API and a worker process each serve their own', () => {
  const token = randomBytes(24).toString('hex');
  let d: ScaleOut;
  let prometheus: PrometheusServer | undefined;
  let apiBase: string;
  let workerBase: string;

  beforeAll(async () => {
    const metricsPort = await freePort();
    d = await startScaleOut(
      'metrics',
      { METRICS_TOKEN: token, HOST: '127.0.0.1' },
      { METRICS_PORT: String(metricsPort) },
    );
    apiBase = d.base;
    workerBase = `http://127.0.0.1:${metricsPort}`;
  });

  afterAll(async () => {
    await prometheus?.close();
    await d?.close();
  });

  const key = () => d.key();
  const call = (path: string, init: RequestInit = {}) =>
    fetch(`${apiBase}${path}`, { ...init, headers: { authorization: `Bearer ${key()}`, ...init.headers } });
  const scrape = async (base: string) => {
    const res = await fetch(`${base}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(res.status).toBe(200);
    return res.text();
  };

  test('the worker port answers /healthz, refuses /metrics without the token, and serves nothing else', async () => {
    expect(d.worker.out()).toContain(`Stemforge worker metrics on ${workerBase}/metrics`);
    const health = await fetch(`${workerBase}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const refused = await fetch(`${workerBase}/metrics`, { headers: { authorization: 'Bearer not-the-token-at-all' } });
    expect(refused.status).toBe(401);
    expect(((await refused.json()) as any).error.code).toBe('METRICS_TOKEN_INVALID');
    const api404 = await fetch(`${workerBase}/v1/balance`);
    expect(api404.status).toBe(404);
    expect(((await api404.json()) as any).error.code).toBe('NOT_FOUND');
  });

  test('a job created on the API and run by the worker is counted where each part happened', async () => {
    const clip = await trimClip(sharedPath('audio', 'denoise', 'noisy_snr0.wav'), join(d.apiData, 'noisy.wav'), 6);
    const form = new FormData();
    form.append('file', new Blob([await readFile(clip)]), 'interview.wav');
    const uploaded: any = await (await call('/v1/files/upload', { method: 'POST', body: form })).json();
    const created: any = await (
      await call('/v1/denoise-jobs', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          inputFileName: 'interview.wav',
          inputFilePath: uploaded.uploadKey,
          inputFileSize: uploaded.fileSizeBytes,
          durationSeconds: 6,
        }),
      })
    ).json();
    let job: any;
    for (let i = 0; i < 240; i++) {
      job = await (await call(`/v1/denoise-jobs/${created.jobId}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.status).toBe('COMPLETED');

    const labels = { kind: 'denoise', tier: 'none' };
    const fromWorker = await scrape(workerBase);
    expect(promtoolCheck(fromWorker)).toEqual({ status: 0, output: '' });
    expect(sampleValue(fromWorker, 'stemforge_jobs_completed_total', labels)).toBe(1);
    expect(
      sampleValue(fromWorker, 'stemforge_job_stage_duration_seconds_count', {
        kind: 'denoise',
        stage: 'inference',
        outcome: 'completed',
      }),
    ).toBe(1);
    expect(sampleValue(fromWorker, 'stemforge_worker_model_available', { model: 'dfn3' })).toBe(1);
    // Counted by the process that created it; here at 0, as every known series starts.
    expect(sampleValue(fromWorker, 'stemforge_jobs_created_total', labels)).toBe(0);
    expect(sampleValue(fromWorker, 'stemforge_processes_resident_memory_bytes', { role: 'main' })).toBeGreaterThan(0);

    const fromApi = await scrape(apiBase);
    expect(promtoolCheck(fromApi)).toEqual({ status: 0, output: '' });
    expect(sampleValue(fromApi, 'stemforge_jobs_created_total', labels)).toBe(1);
    expect(sampleValue(fromApi, 'stemforge_jobs_completed_total', labels)).toBe(0);
    // The fleet as the database sees it, from the API process that runs no worker.
    expect(sampleValue(fromApi, 'stemforge_workers_live')).toBe(1);
    expect(sampleValue(fromApi, 'stemforge_workers_with_model', { model: 'dfn3' })).toBe(1);
    expect(sampleValue(fromApi, 'stemforge_queue_depth', { queue: 'inference' })).toBe(0);
    expect(sampleValue(fromApi, 'stemforge_worker_concurrency', { stage: 'inference' })).toBeUndefined();
    expect(
      sampleValue(fromApi, 'stemforge_http_requests_total', {
        method: 'GET',
        route: '/v1/denoise-jobs/:id',
        status: '200',
      }),
    ).toBeGreaterThan(0);
  });

  test('a direct upload: the API holds an estimate, the worker settles it; held equals charged plus released', async () => {
    const clip = await trimClip(
      sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
      join(d.apiData, 'noisy-direct.wav'),
      6,
    );
    const bytes = await readFile(clip);
    const grant: any = await (
      await call('/v1/upload', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ filename: 'direct.wav', fileSizeBytes: bytes.length }),
      })
    ).json();
    expect(grant.uploadUrl.startsWith(d.s3.endpoint)).toBe(true);
    const put = await fetch(grant.uploadUrl, {
      method: 'PUT',
      headers: { 'content-type': grant.contentType },
      body: bytes,
    });
    expect(put.status).toBe(200);
    const res = await call('/v1/denoise-jobs', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        inputFileName: 'direct.wav',
        inputFilePath: grant.uploadKey,
        inputFileSize: 1,
        durationSeconds: 1,
      }),
    });
    expect(res.status).toBe(200);
    const created: any = await res.json();
    let job: any;
    for (let i = 0; i < 240; i++) {
      job = await (await call(`/v1/denoise-jobs/${created.jobId}`)).json();
      if (job.status === 'COMPLETED' || job.status === 'FAILED') break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(job.status).toBe('COMPLETED');
    const fromApi = await scrape(apiBase);
    const fromWorker = await scrape(workerBase);
    const estimate = sampleValue(fromWorker, 'stemforge_credits_released_seconds_total', { reason: 'estimate' })!;
    expect(estimate).toBeGreaterThan(0);
    // The worker held the measured length (6 s) in place of the estimate the API held.
    expect(sampleValue(fromWorker, 'stemforge_credits_held_seconds_total')).toBe(6);
    const held =
      sampleValue(fromApi, 'stemforge_credits_held_seconds_total')! +
      sampleValue(fromWorker, 'stemforge_credits_held_seconds_total')!;
    const charged = sampleValue(fromWorker, 'stemforge_credits_charged_seconds_total')!;
    const released = ['estimate', 'unused', 'failed', 'cancelled']
      .map((reason) => sampleValue(fromWorker, 'stemforge_credits_released_seconds_total', { reason }) ?? 0)
      .reduce((a, b) => a + b, 0);
    expect(charged).toBe(12);
    expect(held).toBe(charged + released);
  });

  test('one Prometheus scrapes the fleet, each process as its own target, and sums the job counters', async () => {
    prometheus = await startPrometheus([
      { name: 'stemforge', targets: [new URL(apiBase).host, new URL(workerBase).host], token },
    ]);
    const up = await prometheus.waitFor(
      'up{job="stemforge"}',
      (r) => r.length === 2 && r.every((x) => x.value[1] === '1'),
    );
    expect(up).toHaveLength(2);
    const created = await prometheus.waitFor(
      'sum(stemforge_jobs_created_total{kind="denoise"})',
      (r) => r.length === 1,
    );
    expect(created[0]?.value[1]).toBe('2');
    // Every process exports the counter (from 0); the worker counted the jobs.
    const completed = await prometheus.waitFor(
      'sum by (instance) (stemforge_jobs_completed_total)',
      (r) => r.length === 2,
    );
    const byInstance = Object.fromEntries(completed.map((x) => [x.metric.instance, x.value[1]]));
    expect(byInstance).toEqual({ [new URL(workerBase).host]: '2', [new URL(apiBase).host]: '0' });
    // The queue gauges come from the database: both processes report the same depth.
    const depth = await prometheus.query('stemforge_queue_depth{queue="inference"}');
    expect(depth.map((x) => x.value[1])).toEqual(['0', '0']);
  });
});
