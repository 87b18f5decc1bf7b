// The separation process's side of the engine: it loads its model once (through the ProcessModels
// its entry composes), then runs jobs one at a time (decode, DSP, inference, encode), reporting
// progress to the parent over IPC.
import { verifyFileCached } from '../models/verify.ts';
import { serveRpc } from '../offload/rpc.ts';
import type { EngineInit, FromEngine, ToEngine } from './engine-protocol.ts';
import type { GraphRewrites } from './prepared-model.ts';
import type { SeparateCall, SeparateResult } from './separate-request.ts';

/** The models one separation process runs, loaded as its jobs need them. */
export interface ProcessModels {
  /** Loads what the first job is expected to need (`EngineInit.firstTier`); says what runs rewritten. */
  start(): Promise<GraphRewrites>;
  /** Runs one job on the model its tier needs (loaded at the first job that needs it). */
  separate(
    request: SeparateCall,
    o: { signal: AbortSignal; onProgress: (fraction: number) => void },
  ): Promise<SeparateResult>;
}

/**
 * Serves separations in this process with the models `load` gives for the parent's set-up message:
 * the product's entry (engine-process.ts) and a benchmark's variant differ only in what they pass.
 */
export function serveSeparation(load: (init: EngineInit) => ProcessModels): void {
  const post = (m: FromEngine) => process.send?.(m);
  let models: Promise<ProcessModels | undefined> = Promise.resolve(undefined);

  const start = async (init: EngineInit): Promise<ProcessModels | undefined> => {
    const t0 = performance.now();
    try {
      if (init.sha256) await verifyFileCached(init.modelPath, init.sha256, init.cacheDir);
      const loaded = load(init);
      const rewrites = await loaded.start();
      post({ type: 'ready', loadMs: performance.now() - t0, rewrites });
      return loaded;
    } catch (err) {
      post({ type: 'load-error', message: (err as Error).message });
      return undefined;
    }
  };

  let initialised = false;
  const serve = serveRpc<SeparateCall, SeparateResult>(
    post,
    async (request, { signal, onProgress }) => {
      const loaded = await models;
      if (!loaded) throw new Error('the separation model failed to load');
      signal.throwIfAborted();
      return loaded.separate(request, { signal, onProgress });
    },
    () => new Error('separation cancelled'),
  );

  process.on('message', (msg: ToEngine) => {
    if (msg.type === 'init') {
      initialised = true;
      models = start(msg.init);
    } else if (initialised) {
      serve(msg);
    }
  });
  // The parent is gone (exited, killed): nobody is left to receive the results.
  process.on('disconnect', () => process.exit(0));
  // The parent decides when this process ends: a stop signal sent to the whole process group (Ctrl-C,
  // systemd's stop) would otherwise fail the running job as an error before the parent hands it back.
  // The parent kills this process when it closes; if the parent dies, the disconnect above ends it.
  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, () => undefined);
}
