import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase, pingDatabase } from '../src/store/db.ts';
import { createMetrics } from '../src/metrics/metrics.ts';
import { registerFleetGauges, registerQueueGauges } from '../src/metrics/queue-gauges.ts';
import pino from 'pino';
import { DependencyMonitor } from '../src/dependencies/monitor.ts';
import { registerDependencyGauge } from '../src/metrics/dependency-gauge.ts';
import { freePort } from './helpers/server.ts';
import { promtoolCheck, sampleValue } from './helpers/prometheus.ts';

/**
 * Issue 40, alerts you can act on: while the database is away a scrape still answers, says so in
 * `stemforge_dependency_up`, and leaves out what it could not read (StemforgeDependencyDown needs
 * the scrape; a failed one would only say the process is down). The database here is a PostgreSQL
 * address nothing listens on: the real driver's connection is refused.
 */
describe('metrics while the database is away', () => {
  const handles: Array<{ close(): Promise<void> }> = [];
  afterAll(async () => {
    for (const h of handles) await h.close();
  });

  it('the scrape answers: dependency_up 0, no queue series, workers_live NaN, promtool-valid', async () => {
    const away = openDatabase(`postgres://postgres@127.0.0.1:${await freePort()}/test`);
    handles.push(away);
    const metrics = createMetrics({ processMetrics: true });
    registerQueueGauges(metrics, away.db);
    registerFleetGauges(metrics, away.db);
    // As the runtime wires it: the readiness monitor's bounded, cached probes.
    const monitor = new DependencyMonitor(pino({ level: 'silent' }), { timeoutMs: 2_000 });
    handles.push({ close: async () => monitor.close() });
    monitor.watch('database', () => pingDatabase(away.db));
    registerDependencyGauge(metrics, () => monitor.check());
    const text = await metrics.registry.metrics();
    expect(sampleValue(text, 'stemforge_dependency_up', { dependency: 'database' })).toBe(0);
    expect(sampleValue(text, 'stemforge_queue_depth', { queue: 'inference' })).toBeUndefined();
    expect(sampleValue(text, 'stemforge_workers_live')).toBeNaN();
    expect(sampleValue(text, 'stemforge_jobs_completed_total', { kind: 'stem', tier: 'BEST' })).toBe(0);
    expect(promtoolCheck(text)).toEqual({ status: 0, output: '' });
  });
});
