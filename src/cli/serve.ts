import type { FastifyInstance } from 'fastify';
import { loadConfig, type Config } from '../config.ts';
import type { Runtime } from '../runtime.ts';
import { buildApp } from '../app/build-app.ts';
import { bootstrapLocalAccount } from '../bootstrap.ts';
import { parseCommandArgs } from './args.ts';
import { startRuntime } from './start-runtime.ts';
import { exitOnStopSignals } from './shutdown.ts';
import { checkTools } from './tool-check.ts';
import { isModelInstalled } from '../models/resolve.ts';

const USAGE = 'stemforge serve [--no-workers]';

/**
 * `stemforge serve`: the API, and in the embedded default also the workers, in one process. A start
 * either comes up or stops within seconds with a line naming the setting at fault: the data folder
 * held by another embedded server, a dependency that does not answer, a port in use. Nothing is
 * created (the first start's account) and no job runs until the port is bound.
 */
export async function run(args: string[]): Promise<void> {
  const { values } = parseCommandArgs(args, { 'no-workers': { type: 'boolean' } }, USAGE);
  const runsJobs = !values['no-workers'];
  const loaded = loadConfig();
  const tools = await checkTools(loaded, {
    ytdlp: true,
    hasModel: runsJobs ? (name) => isModelInstalled(name, { modelsDir: loaded.modelsDir }) : undefined,
  });
  const config = tools.config;
  const { rt, lock, sweeper, abandon } = await startRuntime(config);
  const app = buildApp(rt);
  try {
    await listen(app, config);
  } catch (err) {
    await sweeper.stop();
    await app.close().catch(() => undefined);
    await abandon();
    throw err;
  }
  // Only now that this process owns the port: an EADDRINUSE start creates no account, prints no key.
  if (config.bootstrapAccount) {
    const banner = await bootstrapLocalAccount(rt);
    if (banner) process.stdout.write(`${banner}\n`);
  }
  process.stdout.write(`${(await tools.lines).join('\n')}\n`);
  // Without ffmpeg no job could run: jobs wait, queued, for a start that has one.
  const workers = runsJobs && !config.ffmpeg.unavailable ? await startWorkersIfAvailable(rt) : null;
  process.stdout.write(
    `Stemforge listening on ${config.publicUrl} (dashboard ${config.publicUrl}/, API ${config.publicUrl}/v1, docs ${config.publicUrl}/docs)\n`,
  );
  // Stop taking requests, let in-flight ones finish, hand running jobs back (they are taken again at
  // once by another worker, or on the next start), then close the connections.
  exitOnStopSignals(rt.log, config.shutdownGraceMs, async () => {
    await app.close();
    await sweeper.stop();
    await workers?.stop();
    await rt.close();
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
