import type { FastifyInstance } from 'fastify';
import type { Metrics } from '../metrics/metrics.ts';

/**
 * Counts every answer and its latency by route pattern (`/v1/jobs/:id`, never the requested path,
 * so the label's values stay bounded), method and status. A request no route matched is `unmatched`.
 */
export function installRequestMetrics(app: FastifyInstance, metrics: Pick<Metrics, 'httpRequests' | 'httpDuration'>) {
  app.addHook('onResponse', async (request, reply) => {
    const labels = {
      method: request.method,
      route: request.is404 ? 'unmatched' : (request.routeOptions.url ?? 'unmatched'),
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
  });
}
