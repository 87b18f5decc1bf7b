import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import type { Metrics } from '../../metrics/metrics.ts';
import { defineRoute } from '../../routing/route.ts';

export interface MetricsRouteDeps {
  metrics: Metrics;
  /** METRICS_TOKEN; undefined: the metrics are off. */
  token: string | undefined;
}

/**
 * `GET /metrics`: this process's metrics in the Prometheus text format, only to a request that
 * carries `Authorization: Bearer <METRICS_TOKEN>`. Without a configured token the route still
 * exists (it never falls through to the dashboard's pages) and answers 404.
 */
export function metricsRoutes(deps: MetricsRouteDeps) {
  return [
    defineRoute({
      method: 'GET',
      url: '/metrics',
      summary: 'Prometheus metrics of this process',
      description:
        'The Prometheus text format (version 0.0.4). Send `Authorization: Bearer <METRICS_TOKEN>`; without ' +
        '`METRICS_TOKEN` configured the metrics are off and this answers 404. Each process serves its own ' +
        '(docs/deploy.md, "Metrics").',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: null,
      errors: ['METRICS_TOKEN_INVALID', 'NOT_FOUND'],
      handler: async ({ request, reply }) => serveMetrics(deps, request, reply),
    }),
  ];
}

/** Answers a scrape; shared by the API and the worker's metrics port (`src/app/metrics-server.ts`). */
export async function serveMetrics(deps: MetricsRouteDeps, request: FastifyRequest, reply: FastifyReply) {
  if (deps.token === undefined) {
    throw new ApiError('NOT_FOUND', 'Metrics are off on this server: set METRICS_TOKEN to serve them.');
  }
  if (!bearerMatches(request.headers.authorization, deps.token)) {
    throw new ApiError('METRICS_TOKEN_INVALID', undefined, {}, { 'WWW-Authenticate': 'Bearer realm="metrics"' });
  }
  const body = await deps.metrics.registry.metrics();
  return reply.header('cache-control', 'no-store').type(deps.metrics.registry.contentType).send(body);
}

/** Constant-time: both sides are hashed first, so neither the token's length nor a prefix leaks. */
function bearerMatches(header: string | undefined, token: string): boolean {
  const given = /^Bearer ([^\s]+)$/i.exec(header ?? '')?.[1] ?? '';
  const digest = (s: string) => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(given), digest(token));
}
