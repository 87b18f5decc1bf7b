import Fastify, { type FastifyInstance } from 'fastify';
import { installErrorHandler } from '../http/error-handler.ts';
import { healthRoutes } from '../http/routes/health.ts';
import { metricsRoutes } from '../http/routes/metrics.ts';
import { registerRoutes } from '../routing/register-routes.ts';
import type { Runtime } from '../runtime.ts';

/**
 * What `stemforge worker` serves on `METRICS_PORT`: its own `/metrics` (behind METRICS_TOKEN, like
 * the API's) and the `/healthz` and `/readyz` probes, so each worker of a fleet can be scraped and
 * probed on its own address. Nothing else: a worker takes no API request.
 */
export function buildMetricsServer(rt: Runtime): FastifyInstance {
  const app = Fastify({ logger: false });
  installErrorHandler(app);
  registerRoutes(app, [...healthRoutes(rt), ...metricsRoutes({ metrics: rt.metrics, token: rt.config.metrics.token })]);
  return app;
}
