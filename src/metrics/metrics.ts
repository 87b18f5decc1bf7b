import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { JOB_KINDS, kindSpec } from '../domain/job-kinds.ts';
import { RELEASE_REASONS, TIERS_BY_KIND, WEBHOOK_OUTCOMES } from './labels.ts';
import { registerProcessMemoryGauge } from './process-memory.ts';

/**
 * This process's Prometheus metrics (prom-client), one registry per runtime: what the API serves at
 * `/metrics` and a scale-out worker on `METRICS_PORT`. Names follow `<project>_<thing>_<unit>`
 * (counters end in `_total`, durations in `_seconds`); labels take only bounded values (route
 * patterns, kinds, tiers, stages, outcomes, model names), never a job, an account or a URL.
 * Gauges read from the database when scraped (`queue-gauges.ts`), so every process reports them
 * and dashboards take their `max`.
 */
export interface Metrics {
  readonly registry: Registry;
  readonly httpRequests: Counter<'method' | 'route' | 'status'>;
  readonly httpDuration: Histogram<'method' | 'route' | 'status'>;
  readonly jobsCreated: Counter<'kind' | 'tier'>;
  readonly jobsCompleted: Counter<'kind' | 'tier'>;
  readonly jobsFailed: Counter<'kind' | 'tier'>;
  readonly jobAttemptsRetried: Counter<'kind' | 'stage'>;
  /** Created to completed or failed: what a client waits. */
  readonly jobDuration: Histogram<'kind' | 'tier' | 'status'>;
  /** Runnable to claimed, per attempt of a stage. */
  readonly queueWait: Histogram<'kind' | 'stage'>;
  readonly stageDuration: Histogram<'kind' | 'stage' | 'outcome'>;
  readonly stagesRunning: Gauge<'kind' | 'stage'>;
  /** Separation wall time over the audio's length (below 1: faster than real time). */
  readonly separationRealTimeFactor: Histogram<'tier' | 'model'>;
  readonly webhookDeliveries: Counter<'outcome'>;
  readonly creditsHeld: Counter;
  readonly creditsCharged: Counter;
  readonly creditsReleased: Counter<'reason'>;
}

export interface MetricsOptions {
  /** Node's process metrics (CPU, memory, event loop, GC): only when the metrics are served. */
  processMetrics: boolean;
}

export const METRIC_PREFIX = 'stemforge_';

/** Request latencies: milliseconds for reads up to a minute for an upload through the API. */
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Stages and jobs: seconds (a short clip's denoise) to hours (a long separation on a CPU). */
const JOB_BUCKETS = [0.5, 1, 2, 5, 10, 20, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, 21600];
const WAIT_BUCKETS = [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];
/** Real-time factors seen here: 0.4-0.6 on 2 vCPUs (docs/performance.md), far lower on a GPU. */
const RTF_BUCKETS = [0.02, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.8, 1, 1.5, 2, 3, 5, 10];

export function createMetrics(opts: MetricsOptions): Metrics {
  const registry = new Registry();
  const registers = [registry];
  const name = (n: string) => `${METRIC_PREFIX}${n}`;
  if (opts.processMetrics) {
    collectDefaultMetrics({ register: registry, prefix: METRIC_PREFIX });
    // Gauges named like counters, which `promtool check metrics` refuses; the same counts stay
    // available by type in `nodejs_active_handles` / `_requests` / `_resources`.
    for (const n of ['active_handles_total', 'active_requests_total', 'active_resources_total']) {
      registry.removeSingleMetric(`${METRIC_PREFIX}nodejs_${n}`);
    }
    registerProcessMemoryGauge(registry, METRIC_PREFIX);
  }
  const metrics: Metrics = {
    registry,
    httpRequests: new Counter({
      name: name('http_requests_total'),
      help: 'HTTP requests answered, by route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    }),
    httpDuration: new Histogram({
      name: name('http_request_duration_seconds'),
      help: 'Time to answer an HTTP request, by route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: HTTP_BUCKETS,
      registers,
    }),
    jobsCreated: new Counter({
      name: name('jobs_created_total'),
      help: 'Jobs created (credits held), by kind and quality tier.',
      labelNames: ['kind', 'tier'],
      registers,
    }),
    jobsCompleted: new Counter({
      name: name('jobs_completed_total'),
      help: 'Jobs completed by this process, by kind and quality tier.',
      labelNames: ['kind', 'tier'],
      registers,
    }),
    jobsFailed: new Counter({
      name: name('jobs_failed_total'),
      help: 'Jobs failed after their last attempt in this process, by kind and quality tier.',
      labelNames: ['kind', 'tier'],
      registers,
    }),
    jobAttemptsRetried: new Counter({
      name: name('job_attempts_retried_total'),
      help: 'Stage attempts that failed and were queued again.',
      labelNames: ['kind', 'stage'],
      registers,
    }),
    jobDuration: new Histogram({
      name: name('job_duration_seconds'),
      help: 'Time from a job’s creation to its end, by kind, tier and final status.',
      labelNames: ['kind', 'tier', 'status'],
      buckets: JOB_BUCKETS,
      registers,
    }),
    queueWait: new Histogram({
      name: name('job_queue_wait_seconds'),
      help: 'Time a stage attempt waited between becoming runnable and being claimed by a worker.',
      labelNames: ['kind', 'stage'],
      buckets: WAIT_BUCKETS,
      registers,
    }),
    stageDuration: new Histogram({
      name: name('job_stage_duration_seconds'),
      help: 'Time a worker spent on one stage attempt, by kind, stage and outcome.',
      labelNames: ['kind', 'stage', 'outcome'],
      buckets: JOB_BUCKETS,
      registers,
    }),
    stagesRunning: new Gauge({
      name: name('job_stages_running'),
      help: 'Stage attempts this process is running now.',
      labelNames: ['kind', 'stage'],
      registers,
    }),
    separationRealTimeFactor: new Histogram({
      name: name('separation_real_time_factor_ratio'),
      help: 'Separation wall time divided by the audio’s duration (below 1 is faster than real time).',
      labelNames: ['tier', 'model'],
      buckets: RTF_BUCKETS,
      registers,
    }),
    webhookDeliveries: new Counter({
      name: name('webhook_deliveries_total'),
      help: 'Webhook delivery attempts by outcome (sent, failed, skipped).',
      labelNames: ['outcome'],
      registers,
    }),
    creditsHeld: new Counter({
      name: name('credits_held_seconds_total'),
      help: 'Credit seconds held for jobs (at creation, and when a direct upload’s estimate is settled).',
      registers,
    }),
    creditsCharged: new Counter({
      name: name('credits_charged_seconds_total'),
      help: 'Credit seconds charged for completed jobs.',
      registers,
    }),
    creditsReleased: new Counter({
      name: name('credits_released_seconds_total'),
      help: 'Credit seconds released back to balances, by reason (unused, failed, cancelled, estimate).',
      labelNames: ['reason'],
      registers,
    }),
  };
  startAtZero(metrics);
  return metrics;
}

/**
 * Every series whose labels are known ahead is exported at 0 from the start, not from its first
 * event: `increase()` and `rate()` then count that first event, and a ratio or an alert over an idle
 * fleet reads 0 rather than nothing. (HTTP series take their route and status from the requests.)
 */
function startAtZero(m: Metrics): void {
  for (const kind of JOB_KINDS) {
    for (const tier of TIERS_BY_KIND[kind]) {
      for (const counter of [m.jobsCreated, m.jobsCompleted, m.jobsFailed]) counter.inc({ kind, tier }, 0);
    }
    for (const stage of kindSpec(kind).stages) {
      m.jobAttemptsRetried.inc({ kind, stage }, 0);
      m.stagesRunning.set({ kind, stage }, 0);
    }
  }
  for (const outcome of WEBHOOK_OUTCOMES) m.webhookDeliveries.inc({ outcome }, 0);
  for (const reason of RELEASE_REASONS) m.creditsReleased.inc({ reason }, 0);
}
