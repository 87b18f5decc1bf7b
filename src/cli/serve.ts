import { loadConfig } from '../config.ts';
import { createRuntime } from '../runtime.ts';
import { buildApp } from '../app/build-app.ts';
import { bootstrapLocalAccount } from '../bootstrap.ts';
import { parseCommandArgs } from './args.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';
import { checkTools } from './tool-check.ts';
import { isModelInstalled } from '../models/resolve.ts';

const USAGE = 'stemforge serve [--no-workers]';

/** `stemforge serve`: the API, and in the embedded default also the workers, in one process. */
export async function run(args: string[]): Promise<void> {
  const { values } = parseCommandArgs(args, { 'no-workers': { type: 'boolean' } }, USAGE);
  const runsJobs = !values['no-workers'];
  const loaded = loadConfig();
  const tools = await checkTools(loaded, {
    ytdlp: true,
    hasModel: runsJobs ? (name) => isModelInstalled(name, { modelsDir: loaded.modelsDir }) : undefined,
  });
  const config = tools.config;
  const rt = await createRuntime(config);
  // Before any request or job: what an earlier process killed mid-work left in the data folder.
  await sweepStartupLeftovers(rt);
  // And every few minutes: what a dead worker of another process left, once its lease has run out.
  const sweeper = startOrphanSweeper(rt);
  if (config.bootstrapAccount) {
    const banner = await bootstrapLocalAccount(rt);
    if (banner) process.stdout.write(`${banner}\n`);
  }
  process.stdout.write(`${(await tools.lines).join('\n')}\n`);
  const app = buildApp(rt);
  // Without ffmpeg no job could run: jobs wait, queued, for a start that has one.
  const workers = runsJobs && !config.ffmpeg.unavailable ? await startWorkersIfAvailable(rt) : null;
  await app.listen({ port: config.port, host: config.host });
  process.stdout.write(
    `Stemforge listening on ${config.publicUrl} (dashboard ${config.publicUrl}/, API ${config.publicUrl}/v1, docs ${config.publicUrl}/docs)\n`,
  );

  let stopping = false;
  const shutdown = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    app.log.info({ signal }, 'shutting down');
    // Stop taking requests, let in-flight ones finish, then stop workers (jobs in progress are
    // picked up again on the next start), then close the database.
    const force = setTimeout(() => process.exit(1), 30_000);
    force.unref();
    await app.close();
    await sweeper.stop();
    await workers?.stop();
    await rt.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

async function startWorkersIfAvailable(rt: Awaited<ReturnType<typeof createRuntime>>) {
  const { startWorkers } = await import('../worker/start.ts');
  return startWorkers(rt);
}
