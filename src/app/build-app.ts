import type { FastifyInstance } from 'fastify';
import { registerDashboard } from '../dashboard/register.ts';
import { type ApiOptions, buildApi } from '../http/app.ts';
import type { Runtime } from '../runtime.ts';

export interface AppOptions extends ApiOptions {
  /** The built front end (default: web/dist); tests point it at a fixture. */
  webDir?: string;
}

/**
 * The whole site for a runtime: the API (`src/http/`) with the dashboard (`src/dashboard/`)
 * mounted beside it, its JSON API and its pages after the API's routes and hooks. The two never
 * import each other; this is where they meet.
 */
export function buildApp(rt: Runtime, opts: AppOptions = {}): FastifyInstance {
  const app = buildApi(rt, opts);
  registerDashboard(app, rt, opts.webDir);
  return app;
}
