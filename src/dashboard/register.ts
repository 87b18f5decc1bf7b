import type { FastifyInstance } from 'fastify';
import { registerRoutes } from '../routing/register-routes.ts';
import type { Runtime } from '../runtime.ts';
import { accountRoutes } from './routes/account.ts';
import { adminRoutes } from './routes/admin.ts';
import { dashboardGuard } from './guard.ts';
import { jobActionRoutes } from './routes/job-actions.ts';
import { jobRoutes } from './routes/jobs.ts';
import { keyRoutes } from './routes/keys.ts';
import { practiceRoutes } from './routes/practice.ts';
import { sessionRoutes } from './routes/sessions.ts';
import { DEFAULT_WEB_DIR, dashboardCsp, pageRoutes } from './routes/pages.ts';
import { webhookRoutes } from './routes/webhooks.ts';

/**
 * The dashboard (docs/dashboard.md): its JSON API under /dashboard/api (session cookie + CSRF, not
 * in the public OpenAPI document) and the built front end at the site root.
 */
export function registerDashboard(app: FastifyInstance, rt: Runtime, webDir?: string): void {
  app.addHook('onRequest', dashboardGuard(rt));
  registerRoutes(app, [
    ...sessionRoutes(rt),
    ...accountRoutes(rt),
    ...jobRoutes(rt),
    ...jobActionRoutes(rt),
    ...practiceRoutes(rt),
    ...keyRoutes(rt),
    ...webhookRoutes(rt),
    ...adminRoutes(rt),
    ...pageRoutes(webDir ?? DEFAULT_WEB_DIR, dashboardCsp(rt.blobs.capabilities.downloadOrigins)),
  ]);
}
