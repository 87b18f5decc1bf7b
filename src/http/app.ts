import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Writable } from 'node:stream';
import { ApiError } from '../domain/errors.ts';
import { answerClientError } from './client-error.ts';
import { installFrameworkAnswers } from './framework-answers.ts';
import { LOG_SERIALIZERS, REDACT_PATHS, REDACTED, scrubUrl } from '../log-redaction.ts';
import { installJsonParser } from './json-body.ts';
import { installIdempotency } from './idempotency.ts';
import type { Runtime } from '../runtime.ts';
import { apiKeyHook } from './auth.ts';
import { installErrorHandler } from './error-handler.ts';
import { paramTooLongError } from '../routing/param-length.ts';
import type { AnyRoute } from '../routing/route.ts';
import { registerRoutes } from '../routing/register-routes.ts';
import { balanceRoutes } from './routes/balance.ts';
import { uploadRoutes } from './routes/uploads.ts';
import { fileRoutes } from './routes/files.ts';
import { denoiseJobRoutes } from './routes/denoise-jobs.ts';
import { cancelRoutes } from './routes/cancel.ts';
import { healthRoutes } from './routes/health.ts';
import { jobRoutes } from './routes/jobs.ts';
import { mediaJobRoutes } from './routes/media-jobs.ts';
import { webhookRoutes } from './routes/webhooks.ts';
import { adminRoutes } from './routes/admin.ts';
import { blobRoutes } from './routes/blobs.ts';
import { docsRoutes } from './routes/docs.ts';
import { metricsRoutes } from './routes/metrics.ts';
import { jobAnalysisRoutes } from './routes/job-analysis.ts';
import { modelRoutes } from './routes/models.ts';
import { installRequestMetrics } from './request-metrics.ts';

export const API_VERSION = '1.0.0';

/** `/api/v1/...` -> `/v1/...`; every other path is left as it is. */
export function hostedBasePath(url: string): string {
  return url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?') ? url.slice(4) : url;
}

/** Config.trustProxy as Fastify takes it: a hop count becomes proxy-addr's "trust the nearest N hops". */
function trustProxyOption(
  t: Runtime['config']['trustProxy'],
): boolean | string[] | ((address: string, hop: number) => boolean) {
  return typeof t === 'number' ? (_address, hop) => hop < t : t;
}

export interface ApiOptions {
  logger?: boolean;
  /** Where the log goes (tests read it); stdout when absent. */
  logStream?: Writable;
}

/**
 * Builds the Fastify app of the API for a runtime: every route, the auth and rate-limit hook, the
 * error mapping. `src/app/build-app.ts` mounts the dashboard on it.
 */
export function buildApi(rt: Runtime, opts: ApiOptions = {}): FastifyInstance {
  const { requestTimeoutMs, idleTimeoutMs, keepAliveTimeoutMs } = rt.config.http;
  const app = Fastify({
    logger:
      opts.logger === false || rt.config.logLevel === 'silent'
        ? false
        : {
            level: rt.config.logLevel,
            ...(opts.logStream ? { stream: opts.logStream } : {}),
            // Never log a key, a secret or a signature (src/log-redaction.ts).
            redact: { paths: REDACT_PATHS, censor: REDACTED },
            serializers: {
              ...LOG_SERIALIZERS,
              req: (req: { method: string; url: string; id: string }) => ({
                method: req.method,
                url: scrubUrl(req.url),
                id: req.id,
              }),
            },
          },
    genReqId: (req) => {
      const given = req.headers['x-request-id'];
      return typeof given === 'string' && /^[\w.-]{1,64}$/.test(given) ? given : randomUUID();
    },
    requestIdHeader: false,
    // The hosted service's base path is /api/v1: the same routes answer there (one route table;
    // signed upload and download URLs too), so a client that hard-codes it needs only the host.
    rewriteUrl: (req) => hostedBasePath(req.url ?? '/'),
    bodyLimit: 1024 * 1024,
    // X-Forwarded-For/-Proto/-Host count only from the proxies the operator names (TRUST_PROXY):
    // trusted by default, a client could pick its own address and dodge the per-address limits.
    trustProxy: trustProxyOption(rt.config.trustProxy),
    clientErrorHandler: answerClientError,
    // A slow or stalled client cannot hold a connection: the whole request must arrive within
    // requestTimeout, and a socket silent either way for idleTimeout is closed (docs/configuration.md).
    requestTimeout: requestTimeoutMs,
    connectionTimeout: idleTimeoutMs,
    keepAliveTimeout: keepAliveTimeoutMs,
    // Host, Expect, CONNECT and a closing server are answered in the contract's body by
    // `framework-answers.ts` rather than by Node or Fastify with theirs.
    return503OnClosing: false,
    http: {
      requireHostHeader: false,
      headersTimeout: Math.min(60_000, requestTimeoutMs),
      // Node checks the request timeout on this period; a quarter of it keeps the cut close to the limit.
      connectionsCheckingInterval: Math.max(250, Math.min(30_000, requestTimeoutMs / 4)),
    },
    // The router's own refusals answer the contract's error body too.
    frameworkErrors: (err, _request, res) => {
      // Typed for the generic route; the reply is a plain one here.
      const reply = res as unknown as FastifyReply;
      const e =
        err.code === 'FST_ERR_MAX_PARAM_LENGTH'
          ? paramTooLongError()
          : new ApiError('VALIDATION_ERROR', 'The request URL is malformed.', { field: null });
      reply.code(e.status).send(e.toBody());
    },
  });
  installFrameworkAnswers(app);
  installJsonParser(app);
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  installErrorHandler(app);
  installRequestMetrics(app, rt.metrics);
  app.addHook(
    'onRequest',
    apiKeyHook({ db: rt.db, rateLimiter: rt.rateLimiter, requestsPerMinute: rt.config.limits.requestsPerMinute }),
  );
  // A claim is held at most as long as a request can live: the whole body (requestTimeout), then a
  // handler silent for no longer than idleTimeout; an older running claim is a crashed process's.
  installIdempotency(app, {
    db: rt.db,
    ttlSeconds: rt.config.idempotencyKeySeconds,
    lockMs: requestTimeoutMs + idleTimeoutMs,
    soleProcess: rt.config.deployment.mode === 'embedded',
  });

  registerRoutes(app, apiRoutes(rt));
  return app;
}

/** Every route of the API, one resource a file (`src/http/routes/`), and the document made of them. */
export function apiRoutes(rt: Runtime): AnyRoute[] {
  const routes: AnyRoute[] = [
    ...healthRoutes(rt),
    ...metricsRoutes({ metrics: rt.metrics, token: rt.config.metrics.token }),
    ...balanceRoutes(rt),
    ...uploadRoutes(rt),
    ...fileRoutes(rt),
    ...jobRoutes(rt),
    ...jobAnalysisRoutes(rt),
    ...modelRoutes(rt),
    ...mediaJobRoutes(rt),
    ...denoiseJobRoutes(rt),
    ...cancelRoutes(rt),
    ...webhookRoutes(rt),
    ...adminRoutes(rt),
    ...blobRoutes({ blobs: rt.blobs, signer: rt.signer }),
  ];
  return [...routes, ...docsRoutes(() => routes, rt.config.publicUrl, API_VERSION)];
}
