import { Gauge } from 'prom-client';
import { kindsInStage, STAGES } from '../domain/job-kinds.ts';
import { MODEL_REGISTRY } from '../models/registry.ts';
import { WORKER_STALE_MS } from '../models/availability.ts';
import type { Db } from '../store/schema.ts';
import { liveWorkerModels, stageQueueStats } from '../store/queue-stats.ts';
import { METRIC_PREFIX, type Metrics } from './metrics.ts';

/**
 * The queue's gauges, read from the jobs table at each scrape (one grouped query per stage), so they
 * are the same in the embedded and the BullMQ deployment and in every process: a dashboard takes
 * their `max` across a fleet. `queue` is the stage (`download`, `inference`).
 */
export function registerQueueGauges(metrics: Metrics, db: Db): void {
  const registers = [metrics.registry];
  // One read serves the gauges of a scrape: the registry collects them one after another.
  const read = perScrape(() => {
    const nowIso = new Date().toISOString();
    return Promise.all(
      STAGES.map(async (stage) => ({ stage, ...(await stageQueueStats(db, kindsInStage(stage), stage, nowIso)) })),
    );
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_depth`,
    help: 'Jobs runnable now and waiting for a worker, per queue (stage).',
    labelNames: ['queue'],
    registers,
    collect: tolerant(async (g) => {
      for (const s of (await read()).value) g.set({ queue: s.stage }, s.waiting);
    }),
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_delayed`,
    help: 'Jobs waiting for a retry’s back-off to end, per queue (stage).',
    labelNames: ['queue'],
    registers,
    collect: tolerant(async (g) => {
      for (const s of (await read()).value) g.set({ queue: s.stage }, s.delayed);
    }),
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_active`,
    help: 'Jobs a worker holds now, per queue (stage).',
    labelNames: ['queue'],
    registers,
    collect: tolerant(async (g) => {
      for (const s of (await read()).value) g.set({ queue: s.stage }, s.active);
    }),
  });
  new Gauge({
    name: `${METRIC_PREFIX}queue_oldest_waiting_seconds`,
    help: 'How long the longest-waiting runnable job has waited, per queue (stage); 0 when none waits.',
    labelNames: ['queue'],
    registers,
    collect: tolerant(async (g) => {
      const { value, at } = await read();
      for (const s of value) {
        const since = s.oldestWaitingSince ? Date.parse(s.oldestWaitingSince) : Number.NaN;
        g.set({ queue: s.stage }, Number.isFinite(since) ? Math.max(0, (at - since) / 1000) : 0);
      }
    }),
  });
}

/**
 * Scale-out: the live workers (`worker_models`, written by each worker's heartbeat) and how many of
 * them can run each model of the registry.
 */
export function registerFleetGauges(metrics: Metrics, db: Db): void {
  const registers = [metrics.registry];
  const read = perScrape(() => liveWorkerModels(db, new Date(Date.now() - WORKER_STALE_MS).toISOString()));
  new Gauge({
    name: `${METRIC_PREFIX}workers_live`,
    help: 'Worker processes seen in the last minute.',
    registers,
    // NaN, not 0, while the database is away: 0 would read as "no worker".
    collect: tolerant(
      async (g) => g.set((await read()).value.workers),
      (g) => g.set(Number.NaN),
    ),
  });
  new Gauge({
    name: `${METRIC_PREFIX}workers_with_model`,
    help: 'Live worker processes that have each model.',
    labelNames: ['model'],
    registers,
    collect: tolerant(async (g) => {
      const { byModel } = (await read()).value;
      for (const m of MODEL_REGISTRY) g.set({ model: m.name }, byModel.get(m.name) ?? 0);
    }),
  });
}

/**
 * A process that runs workers: its concurrency per stage and the models it can load now (read at
 * each scrape: a `models pull` shows up). Embedded, this is the whole fleet.
 */
export function registerWorkerGauges(
  metrics: Metrics,
  worker: { concurrency: Record<string, number>; hasModel: (name: string) => boolean },
): void {
  const registers = [metrics.registry];
  // Workers started again on the same runtime replace the earlier pools' gauges.
  for (const n of ['worker_concurrency', 'worker_model_available'])
    metrics.registry.removeSingleMetric(METRIC_PREFIX + n);
  const slots = new Gauge({
    name: `${METRIC_PREFIX}worker_concurrency`,
    help: 'Stage attempts this process runs at once, per stage.',
    labelNames: ['stage'],
    registers,
  });
  for (const [stage, n] of Object.entries(worker.concurrency)) slots.set({ stage }, n);
  new Gauge({
    name: `${METRIC_PREFIX}worker_model_available`,
    help: 'Whether this worker process can run each model (1) or not (0).',
    labelNames: ['model'],
    registers,
    collect() {
      for (const m of MODEL_REGISTRY) this.set({ model: m.name }, worker.hasModel(m.name) ? 1 : 0);
    },
  });
}

/**
 * `read` at most once a second: the gauges of one scrape share a database read. While the database
 * is away the read fails and each gauge leaves its series out (`tolerant`), so the scrape still
 * answers with what it knows, `stemforge_dependency_up` included.
 */
function perScrape<T>(read: () => Promise<T>): () => Promise<{ value: T; at: number }> {
  let last: { at: number; value: Promise<T> } | undefined;
  return async () => {
    const now = Date.now();
    if (!last || now - last.at > 1000) last = { at: now, value: read() };
    const { at, value } = last;
    return { at, value: await value };
  };
}

/**
 * A gauge's `collect` that, when its read fails, leaves its series out (or does what `failed` says)
 * instead of failing the scrape.
 */
function tolerant(collect: (gauge: Gauge<string>) => Promise<void>, failed = (g: Gauge<string>) => g.reset()) {
  return async function (this: Gauge<string>) {
    try {
      await collect(this);
    } catch {
      failed(this);
    }
  };
}
