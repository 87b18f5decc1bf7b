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

/** How long one ffmpeg check answers `/readyz` (the dependencies keep their own answers as long). */
const FFMPEG_CHECK_MS = 2_000;

/**
 * Liveness (`/healthz`: the process answers, whatever its dependencies do) and readiness (`/readyz`:
 * the database, and where the deployment has them Redis and S3, answer within
 * DEPENDENCY_TIMEOUT_SECONDS; ffmpeg is present). Probes are bounded and their answers reused for
 * a moment, so a load balancer probing often adds no load.
 */
export function healthRoutes(rt: Pick<Runtime, 'config' | 'dependencies'>) {
  let ffmpeg: { at: number; check: Promise<{ ok: boolean; detail?: string }> } | undefined;
  const checkFfmpeg = () => {
    if (!ffmpeg || Date.now() - ffmpeg.at >= FFMPEG_CHECK_MS) {
      const check = run(rt.config.ffmpeg.ffmpegPath, ['-version'], { timeout: rt.config.dependencyTimeoutMs }).then(
        () => ({ ok: true }),
        (e: Error) => ({ ok: false, detail: e.message }),
      );
      ffmpeg = { at: Date.now(), check };
    }
    return ffmpeg.check;
  };
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
      summary: 'Readiness probe: database, Redis and S3 reachable (where used), ffmpeg present',
      tag: 'Operations',
      auth: 'none',
      status: 200,
      response: Readiness,
      handler: async ({ reply }) => {
        const [dependencies, ffmpegCheck] = await Promise.all([rt.dependencies.check(), checkFfmpeg()]);
        const checks = { ...dependencies, ffmpeg: ffmpegCheck };
        const ok = Object.values(checks).every((c) => c.ok);
        const body = { status: ok ? ('ready' as const) : ('not_ready' as const), checks };
        if (!ok) return reply.code(503).send(Readiness.parse(body));
        return body;
      },
    }),
  ];
}
