import { Gauge } from 'prom-client';
import { METRIC_PREFIX, type Metrics } from './metrics.ts';

/** Whether each dependency answered (`{ database: { ok: true } }`), as the readiness probe sees it. */
type DependencyCheck = () => Promise<Record<string, { ok: boolean }>>;

/**
 * `stemforge_dependency_up{dependency}`: 1 while this process reaches each dependency it uses, 0
 * while it does not, read at each scrape from the readiness checks (bounded and cached there). The
 * alert on it (docs/alerts.yml) needs a scrape that still answers while a dependency is away, so
 * nothing the scrape reads may stop it (the queue gauges leave their series out meanwhile).
 */
export function registerDependencyGauge(metrics: Metrics, check: DependencyCheck): void {
  new Gauge({
    name: `${METRIC_PREFIX}dependency_up`,
    help: 'Whether this process reaches each dependency it uses now (database, redis, storage): 1 or 0.',
    labelNames: ['dependency'],
    registers: [metrics.registry],
    async collect() {
      for (const [dependency, { ok }] of Object.entries(await check())) this.set({ dependency }, ok ? 1 : 0);
    },
  });
}
