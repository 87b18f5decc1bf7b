import Fastify, { type FastifyInstance } from 'fastify';
import { randomUUID } from 'node:crypto';
import type { Runtime } from '../runtime.ts';
import { apiKeyHook } from './auth.ts';
import { installErrorHandler } from './error-handler.ts';
import { type AnyRoute, registerRoutes } from './route.ts';
import { balanceRoutes } from './balance.ts';
import { uploadGrantRoutes } from './upload.ts';
import { registerUploadPut } from './upload-put.ts';
import { filesUploadRoute, registerFilesUpload } from './files-upload.ts';
import { denoiseJobRoutes } from './denoise-jobs.ts';
import { healthRoutes } from './health.ts';
import { jobRoutes } from './jobs.ts';
import { videoJobRoutes } from './video-jobs.ts';
import { trackJobRoutes } from './track-jobs.ts';
import { webhookRoutes } from './webhooks.ts';
import { openApiRoutes } from './openapi.ts';
import { registerBlobRoutes } from './blob-routes.ts';
import { registerDocsAssets } from './docs-page.ts';
import { registerDashboard } from '../dashboard/register.ts';

export const API_VERSION = '1.0.0';

/** `/api/v1/...` -> `/v1/...`; every other path is left as it is. */
export function hostedBasePath(url: string): string {
  return url === '/api/v1' || url.startsWith('/api/v1/') || url.startsWith('/api/v1?') ? url.slice(4) : url;
}

export interface AppOptions {
  logger?: boolean;
  /** The built front end (default: web/dist); tests point it at a fixture. */
  webDir?: string;
}

/** Builds the Fastify app for a runtime: every route, the auth and rate-limit hook, the error mapping. */
export function buildApp(rt: Runtime, opts: AppOptions = {}): FastifyInstance {
  const app = Fastify({
    logger:
      opts.logger === false || rt.config.logLevel === 'silent'
        ? false
        : {
            level: rt.config.logLevel,
            // Never log a key, a secret or a signature.
            redact: { paths: ['req.headers.authorization', 'req.headers.cookie'], censor: '[redacted]' },
            serializers: {
              req: (req: { method: string; url: string; id: string }) => ({
                method: req.method,
                url: req.url.replace(/([?&](sig|exp)=)[^&]*/g, '$1…'),
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
    trustProxy: true,
  });
  app.addHook('onSend', async (request, reply) => {
    reply.header('X-Request-Id', request.id);
  });
  installErrorHandler(app);
  app.addHook(
    'onRequest',
    apiKeyHook({ db: rt.db, rateLimiter: rt.rateLimiter, requestsPerMinute: rt.config.limits.requestsPerMinute }),
  );

  const routes: AnyRoute[] = [
    ...healthRoutes(rt),
    ...balanceRoutes(rt),
    ...uploadGrantRoutes(rt),
    ...jobRoutes(rt),
    ...videoJobRoutes(rt),
    ...trackJobRoutes(rt),
    ...denoiseJobRoutes(rt),
    ...webhookRoutes(rt),
  ];
  const all = [...routes, ...openApiRoutes(() => [...routes, filesUploadRoute(rt)], rt.config.publicUrl, API_VERSION)];
  registerRoutes(app, all);
  registerUploadPut(app, rt);
  registerFilesUpload(app, rt);
  registerBlobRoutes(app, { store: rt.store, signer: rt.signer });
  registerDocsAssets(app);
  registerDashboard(app, rt, opts.webDir);
  return app;
}
