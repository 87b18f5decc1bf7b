import type { FastifyInstance } from 'fastify';
import { registerRoutes } from '../routing/route.ts';
import type { Runtime } from '../runtime.ts';
import { accountRoutes } from './account-routes.ts';
import { adminRoutes } from './admin-routes.ts';
import { dashboardGuard } from './guard.ts';
import { jobActionRoutes } from './job-action-routes.ts';
import { jobRoutes } from './job-routes.ts';
import { keyRoutes } from './key-routes.ts';
import { sessionRoutes } from './session-routes.ts';
import { DEFAULT_WEB_DIR, dashboardCsp, registerDashboardPages } from './static.ts';
import { webhookRoutes } from './webhook-routes.ts';

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
    ...keyRoutes(rt),
    ...webhookRoutes(rt),
    ...adminRoutes(rt),
  ]);
  registerDashboardPages(app, webDir ?? DEFAULT_WEB_DIR, dashboardCsp(rt.store.capabilities.downloadOrigins));
}
