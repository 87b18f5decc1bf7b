import { loadConfig } from '../config.ts';
import { createRuntime, type Runtime } from '../runtime.ts';
import { startWorkers } from '../worker/start.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';
import { buildMetricsServer } from '../app/metrics-server.ts';
import { expectNoArgs } from './args.ts';
import { lockDataFolder } from '../store/data-folder-lock.ts';
import { checkDependencies, databaseStartError } from './startup-checks.ts';
import { closeAfterFailedStart, exitOnStopSignals } from './shutdown.ts';
import { safeError } from '../queue/log-swallowed.ts';

/** `stemforge worker`: workers only, for the scale-out deployment (API processes run `serve --no-workers`). */
export async function run(args: string[]): Promise<void> {
  expectNoArgs(args, 'stemforge worker');
  const config = loadConfig();
  // Embedded has one process per data folder (src/store/data-folder-lock.ts); scale-out workers each have their own.
  const lock = config.deployment.mode === 'embedded' ? lockDataFolder(config.dataDir) : undefined;
  let rt: Runtime | undefined;
  try {
    rt = await createRuntime(config).catch((err: unknown) => {
      throw databaseStartError(config, err);
    });
    await checkDependencies(rt);
    await sweepStartupLeftovers(rt).catch((err: unknown) =>
      rt?.log.warn({ error: safeError(err) }, 'the start-up orphan sweep failed (the periodic one retries)'),
    );
  } catch (err) {
    const started = rt;
    await closeAfterFailedStart(config.dependencyTimeoutMs, started && (() => started.close()));
    lock?.release();
    throw err;
  }
  const runtime = rt;
  const sweeper = startOrphanSweeper(runtime);
  const workers = await startWorkers(runtime);
  // Its own metrics and probes, when the operator gives it a port (docs/deploy.md, "Metrics").
  const server = config.metrics.port === undefined ? null : buildMetricsServer(runtime);
  if (server) {
    await server.listen({ port: config.metrics.port, host: config.host });
    process.stdout.write(`Stemforge worker metrics on http://${config.host}:${config.metrics.port}/metrics\n`);
  }
  process.stdout.write('Stemforge worker started\n');
  // Running jobs are handed back (another worker takes them at once); a Redis that is away makes
  // the queue's goodbyes time out, and the grace period bounds the whole stop.
  exitOnStopSignals(runtime.log, config.shutdownGraceMs, async () => {
    await sweeper.stop();
    await server?.close();
    await workers.stop();
    await runtime.close();
    lock?.release();
  });
}
