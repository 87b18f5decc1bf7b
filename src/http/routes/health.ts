import { pingDatabase } from '../../store/db.ts';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { z } from 'zod';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';

const run = promisify(execFile);

const Health = z.object({ status: z.literal('ok') });
const Readiness = z.object({
  status: z.enum(['ready', 'not_ready']),
  checks: z.record(z.string(), z.object({ ok: z.boolean(), detail: z.string().optional() })),
});

/** Liveness (`/healthz`: the process answers) and readiness (`/readyz`: database and ffmpeg usable). */
export function healthRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'GET',
      url: '/healthz',
      summary: 'Liveness probe',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: Health,
      handler: async () => ({ status: 'ok' as const }),
    }),
    defineRoute({
      method: 'GET',
      url: '/readyz',
      summary: 'Readiness probe: database reachable, ffmpeg present',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: Readiness,
      handler: async ({ reply }) => {
        const checks: Record<string, { ok: boolean; detail?: string }> = {};
        await Promise.all([
          pingDatabase(rt.db).then(
            () => (checks.database = { ok: true }),
            (e: Error) => (checks.database = { ok: false, detail: e.message }),
          ),
          run(rt.config.ffmpeg.ffmpegPath, ['-version'], { timeout: 5000 }).then(
            () => (checks.ffmpeg = { ok: true }),
            (e: Error) => (checks.ffmpeg = { ok: false, detail: e.message }),
          ),
        ]);
        const ok = Object.values(checks).every((c) => c.ok);
        if (!ok) reply.code(503);
        const body = { status: ok ? ('ready' as const) : ('not_ready' as const), checks };
        if (!ok) return reply.send(Readiness.parse(body));
        return body;
      },
    }),
  ];
}
