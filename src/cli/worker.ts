import { loadConfig } from '../config.ts';
import { createRuntime } from '../runtime.ts';
import { startWorkers } from '../worker/start.ts';
import { startOrphanSweeper, sweepStartupLeftovers } from '../startup-sweep.ts';
import { buildMetricsServer } from '../app/metrics-server.ts';
import { expectNoArgs } from './args.ts';
import { checkTools } from './tool-check.ts';
import { isModelInstalled } from '../models/resolve.ts';

/** `stemforge worker`: workers only, for the scale-out deployment (API processes run `serve --no-workers`). */
export async function run(args: string[]): Promise<void> {
  expectNoArgs(args, 'stemforge worker');
  const loaded = loadConfig();
  const tools = await checkTools(loaded, {
    ytdlp: true,
    hasModel: (name) => isModelInstalled(name, { modelsDir: loaded.modelsDir }),
  });
  process.stdout.write(`${(await tools.lines).join('\n')}\n`);
  const config = tools.config;
  if (config.ffmpeg.unavailable) {
    process.stderr.write(
      'stemforge worker: no job can run without ffmpeg: install ffmpeg 5.1 or newer, or run npm ci\n',
    );
    process.exit(1);
  }
  const rt = await createRuntime(config);
  await sweepStartupLeftovers(rt);
  const sweeper = startOrphanSweeper(rt);
  const workers = await startWorkers(rt);
  // Its own metrics and probes, when the operator gives it a port (docs/deploy.md, "Metrics").
  const server = config.metrics.port === undefined ? null : buildMetricsServer(rt);
  if (server) {
    await server.listen({ port: config.metrics.port, host: config.host });
    process.stdout.write(`Stemforge worker metrics on http://${config.host}:${config.metrics.port}/metrics\n`);
  }
  process.stdout.write('Stemforge worker started\n');
  const shutdown = async () => {
    await sweeper.stop();
    await server?.close();
    await workers.stop();
    await rt.close();
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown());
  process.on('SIGTERM', () => void shutdown());
}
