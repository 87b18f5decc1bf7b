import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config.ts';
import { createMetrics } from '../../src/metrics/metrics.ts';
import { registerFleetGauges, registerQueueGauges, registerWorkerGauges } from '../../src/metrics/queue-gauges.ts';
import { storedTierLabel, tierLabel } from '../../src/metrics/labels.ts';
import { registerDependencyGauge } from '../../src/metrics/dependency-gauge.ts';
import { parse } from 'yaml';
import type { Db } from '../../src/store/schema.ts';

const repo = join(import.meta.dirname, '..', '..');

/** Every metric a process can expose: the API's, the queue's and fleet's gauges, a worker's. */
function fullRegistry() {
  const metrics = createMetrics({ processMetrics: true });
  // Gauges read the database only when scraped; naming them needs none.
  const db = {} as Db;
  registerQueueGauges(metrics, db);
  registerFleetGauges(metrics, db);
  registerWorkerGauges(metrics, { concurrency: { inference: 1 }, hasModel: () => true });
  registerDependencyGauge(metrics, async () => ({}));
  return metrics.registry.getMetricsAsArray().map((m) => ({
    name: m.name,
    type: (m as unknown as { type: string }).type,
    labels: ((m as unknown as { labelNames?: string[] }).labelNames ?? []) as string[],
  }));
}

/** The metric names a PromQL expression uses (histogram series names mapped back to their metric). */
function metricNamesIn(expr: string): string[] {
  return [...expr.matchAll(/\bstemforge_[a-zA-Z0-9_]+/g)].map((m) => m[0]);
}

describe('metric names and labels', () => {
  const all = fullRegistry();

  it('every name starts with stemforge_; counters end in _total; histograms are _seconds, or _ratio for the RTF', () => {
    expect(all.length).toBeGreaterThan(30);
    for (const m of all) {
      expect(m.name, m.name).toMatch(/^stemforge_[a-z0-9_]+$/);
      if (m.type === 'counter') expect(m.name, m.name).toMatch(/_total$/);
      else expect(m.name, m.name).not.toMatch(/_total$/);
      if (m.type === 'histogram') expect(m.name, m.name).toMatch(/_(seconds|ratio)$/);
    }
    const names = all.map((m) => m.name);
    expect(names).toContain('stemforge_separation_real_time_factor_ratio');
    expect(names).toContain('stemforge_job_stage_duration_seconds');
    expect(names).toContain('stemforge_queue_depth');
    expect(names).toContain('stemforge_process_cpu_seconds_total');
    expect(names).toContain('stemforge_processes_resident_memory_bytes');
    expect(names).toContain('stemforge_dependency_up');
  });

  it('counters with known labels start at 0 for each: a job completed is counted by increase() from the first', async () => {
    const text = await createMetrics({ processMetrics: false }).registry.metrics();
    const zeros = (name: string) => text.split('\n').filter((l) => l.startsWith(`${name}{`) && l.endsWith(' 0'));
    expect(zeros('stemforge_jobs_completed_total')).toContain(
      'stemforge_jobs_completed_total{kind="stem",tier="FAST"} 0',
    );
    expect(zeros('stemforge_jobs_completed_total')).toContain(
      'stemforge_jobs_completed_total{kind="denoise",tier="none"} 0',
    );
    expect(zeros('stemforge_jobs_completed_total')).toHaveLength(10); // 3 separation kinds x 3 tiers + denoise
    expect(zeros('stemforge_jobs_failed_total')).toHaveLength(10);
    expect(zeros('stemforge_job_attempts_retried_total')).toHaveLength(6); // stem, denoise: 1 stage; video, track: 2
    expect(zeros('stemforge_webhook_deliveries_total')).toHaveLength(3);
    expect(zeros('stemforge_credits_released_seconds_total')).toHaveLength(4);
    expect(zeros('stemforge_job_stages_running')).toHaveLength(6);
  });

  it('no label can carry an unbounded value (an id, an account, a URL or a path)', () => {
    const allowed = new Set(['method', 'route', 'status', 'kind', 'tier', 'stage', 'outcome', 'reason', 'queue']);
    for (const n of ['model', 'role', 'dependency']) allowed.add(n);
    // Node's process metrics label by bounded runtime facts.
    for (const n of ['type', 'space', 'kind', 'version', 'major', 'minor', 'patch']) allowed.add(n);
    expect(all.find((m) => m.name === 'stemforge_http_requests_total')?.labels).toEqual(['method', 'route', 'status']);
    for (const m of all) for (const label of m.labels) expect(allowed.has(label), `${m.name}{${label}}`).toBe(true);
  });

  it('the tier label is a quality tier or none, whatever the stored options hold', () => {
    expect(tierLabel({ quality: 'BEST' })).toBe('BEST');
    expect(tierLabel({ quality: 'best; drop table' })).toBe('none');
    expect(tierLabel({ outputFormat: 'MP3' })).toBe('none');
    expect(storedTierLabel('{"quality":"FAST","outputType":"VOCALS"}')).toBe('FAST');
    expect(storedTierLabel('{not json')).toBe('none');
    expect(storedTierLabel(null)).toBe('none');
  });

  it('METRICS_TOKEN shorter than 16 characters and a bad METRICS_PORT stop the start, naming them', () => {
    expect(() => loadConfig({ METRICS_TOKEN: 'short' })).toThrow(/METRICS_TOKEN/);
    expect(() => loadConfig({ METRICS_PORT: '70000' })).toThrow(/METRICS_PORT/);
    const on = loadConfig({ METRICS_TOKEN: 'a-token-of-32-characters-or-so!!', METRICS_PORT: '9464' });
    expect(on.metrics).toEqual({ token: 'a-token-of-32-characters-or-so!!', port: 9464 });
    expect(loadConfig({ METRICS_TOKEN: ' ' }).metrics).toEqual({ token: undefined, port: undefined });
  });
});

describe('the alert rules (docs/alerts.yml)', () => {
  const rules: Array<{ alert: string; expr: string }> = parse(readFileSync(join(repo, 'docs', 'alerts.yml'), 'utf8'))
    .groups[0].rules;

  it('cover dependencies, processes, workers, queue age, job failures and webhooks, on metrics that exist', () => {
    expect(rules.map((r) => r.alert).sort()).toEqual([
      'StemforgeDependencyDown',
      'StemforgeJobFailureRatio',
      'StemforgeProcessDown',
      'StemforgeQueueStuck',
      'StemforgeWebhookFailures',
      'StemforgeWorkerAbsent',
    ]);
    const registry = new Set(fullRegistry().map((m) => m.name));
    for (const name of new Set(rules.flatMap((r) => metricNamesIn(r.expr))))
      expect(registry.has(name), name).toBe(true);
  });
});

describe('the Grafana dashboard (docs/grafana-dashboard.json)', () => {
  const dashboard = JSON.parse(readFileSync(join(repo, 'docs', 'grafana-dashboard.json'), 'utf8'));
  const panels: any[] = dashboard.panels.filter((p: any) => p.type !== 'row');
  const exprs: string[] = panels.flatMap((p) => p.targets.map((t: any) => t.expr));

  it('every metric its PromQL uses exists in the registry', () => {
    const registry = new Map(fullRegistry().map((m) => [m.name, m.type]));
    const used = new Set(exprs.flatMap(metricNamesIn));
    expect(used.size).toBeGreaterThan(15);
    for (const name of used) {
      const histogram = /^(.*)_(bucket|sum|count)$/.exec(name)?.[1];
      const found = registry.has(name) || (histogram !== undefined && registry.get(histogram) === 'histogram');
      expect(found, name).toBe(true);
    }
  });

  it('covers the queue, workers, jobs, RTF, webhooks, credits, HTTP and processes; ids are unique', () => {
    const text = exprs.join('\n');
    for (const needed of [
      'stemforge_queue_depth',
      'stemforge_queue_oldest_waiting_seconds',
      'stemforge_workers_with_model',
      'stemforge_jobs_completed_total',
      'stemforge_jobs_failed_total',
      'stemforge_job_stage_duration_seconds_bucket',
      'stemforge_separation_real_time_factor_ratio_bucket',
      'stemforge_webhook_deliveries_total',
      'stemforge_credits_charged_seconds_total',
      'stemforge_http_request_duration_seconds_bucket',
      'stemforge_processes_resident_memory_bytes',
      'stemforge_dependency_up',
    ]) {
      expect(text).toContain(needed);
    }
    const ids = dashboard.panels.map((p: any) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const p of panels) expect(p.datasource.uid).toMatch(/^\$\{DS_PROMETHEUS\}$/);
  });
});
