import { loadConfig } from '../config.ts';
import { createRuntime } from '../runtime.ts';
import { startWorkers } from '../worker/start.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';

/** `stemforge worker`: workers only, for the scale-out deployment (API processes run `serve --no-workers`). */
export async function run(): Promise<void> {
  const rt = await createRuntime(loadConfig());
  await sweepStartupLeftovers(rt);
  const sweeper = startOrphanSweeper(rt);
  const workers = await startWorkers(rt);
  process.stdout.write('Stemforge worker started\n');
  const shutdown = async () => {
    await sweeper.stop();
    await workers.stop();
    await rt.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}
