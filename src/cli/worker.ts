import { loadConfig } from '../config.ts';
import { startWorkers } from '../worker/start.ts';
import { buildMetricsServer } from '../app/metrics-server.ts';
import { expectNoArgs } from './args.ts';
import { startRuntime } from './start-runtime.ts';
import { exitOnStopSignals } from './shutdown.ts';
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
  const { rt, lock, sweeper } = await startRuntime(config);
  const workers = await startWorkers(rt);
  // Its own metrics and probes, when the operator gives it a port (docs/deploy.md, "Metrics").
  const server = config.metrics.port === undefined ? null : buildMetricsServer(rt);
  if (server) {
    await server.listen({ port: config.metrics.port, host: config.host });
    process.stdout.write(`Stemforge worker metrics on http://${config.host}:${config.metrics.port}/metrics\n`);
  }
  process.stdout.write('Stemforge worker started\n');
  // Running jobs are handed back (another worker takes them at once); a Redis that is away makes
  // the queue's goodbyes time out, and the grace period bounds the whole stop.
  exitOnStopSignals(rt.log, config.shutdownGraceMs, async () => {
    await sweeper.stop();
    await server?.close();
    await workers.stop();
    await rt.close();
    lock?.release();
  });
}
