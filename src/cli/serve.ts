import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../config.ts';
import { createRuntime, type Runtime } from '../runtime.ts';
import { buildApp } from '../app/build-app.ts';
import { bootstrapLocalAccount } from '../bootstrap.ts';
import { parseCommandArgs } from './args.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';
import { lockDataFolder } from '../store/data-folder-lock.ts';
import { checkDependencies, databaseStartError } from './startup-checks.ts';
import { closeAfterFailedStart, exitOnStopSignals } from './shutdown.ts';
import { safeError } from '../queue/log-swallowed.ts';

const USAGE = 'stemforge serve [--no-workers]';

/**
 * `stemforge serve`: the API, and in the embedded default also the workers, in one process. A start
 * either comes up or stops within seconds with a line naming the setting at fault: the data folder
 * held by another embedded server, a dependency that does not answer, a port in use. Nothing is
 * created (the first start's account) and no job runs until the port is bound.
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseCommandArgs(args, { 'no-workers': { type: 'boolean' } }, USAGE);
  const config = loadConfig();
  // Before anything touches the data folder: a second embedded server must not sweep the first's work.
  const lock = config.deployment.mode === 'embedded' ? lockDataFolder(config.dataDir) : undefined;
  let rt: Runtime | undefined;
  let app: FastifyInstance | undefined;
  try {
    rt = await createRuntime(config).catch((err: unknown) => {
      throw databaseStartError(config, err);
    });
    await checkDependencies(rt);
    // What an earlier process killed mid-work left in the data folder; a failure here is a warning.
    await sweepStartupLeftovers(rt).catch((err: unknown) =>
      rt?.log.warn({ error: safeError(err) }, 'the start-up orphan sweep failed (the periodic one retries)'),
    );
    app = buildApp(rt);
    await listen(app, config);
  } catch (err) {
    const started = rt;
    await closeAfterFailedStart(
      config.dependencyTimeoutMs,
      app && (() => app!.close()),
      started && (() => started.close()),
    );
    lock?.release();
    throw err;
  }
  // And every few minutes: what a dead worker of another process left, once its lease has run out.
  const sweeper = startOrphanSweeper(rt);
  // Only now that this process owns the port: an EADDRINUSE start creates no account, prints no key.
  if (config.bootstrapAccount) {
    const banner = await bootstrapLocalAccount(rt);
    if (banner) process.stdout.write(`${banner}\n`);
  }
  const workers = values['no-workers'] ? null : await startWorkersIfAvailable(rt);
  process.stdout.write(
    `Stemforge listening on ${config.publicUrl} (dashboard ${config.publicUrl}/, API ${config.publicUrl}/v1, docs ${config.publicUrl}/docs)\n`,
  );
  const runtime = rt;
  const server = app;
  // Stop taking requests, let in-flight ones finish, hand running jobs back (they are taken again at
  // once by another worker, or on the next start), then close the connections.
  exitOnStopSignals(runtime.log, config.shutdownGraceMs, async () => {
    await server.close();
    await sweeper.stop();
    await workers?.stop();
    await runtime.close();
    lock?.release();
  });
}

/** Binds the port, or stops the start with the setting to change. */
async function listen(app: FastifyInstance, config: Config): Promise<void> {
  try {
    await app.listen({ port: config.port, host: config.host });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL') {
      const why = code === 'EADDRINUSE' ? 'is in use' : code === 'EACCES' ? 'needs privileges' : 'is not on this host';
      throw new Error(`PORT/HOST: ${config.host}:${config.port} ${why} (${code})`, { cause: err });
    }
    throw err;
  }
}

async function startWorkersIfAvailable(rt: Runtime) {
  const { startWorkers } = await import('../worker/start.ts');
  return startWorkers(rt);
}
