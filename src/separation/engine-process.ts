// Child-process entry of the separation engine: loads the model once, then runs jobs one at a time
// (decode, DSP, inference, encode), reporting progress to the parent over IPC. A process of its own
// so that its malloc tunables apply (engine-env.ts), its memory goes back to the system when it
// ends, and a crash inside onnxruntime cannot take the API down with it.
import { ENGINE_SAMPLE_RATE } from '../audio/tools.ts';
import { verifyFileCached } from '../models/verify.ts';
import type { EngineInit, FromEngine, ToEngine } from './engine-protocol.ts';
import { separateFileWith } from './separate-file.ts';
import { SegmentModel } from './segment-model.ts';
import { NO_REWRITES, prepareModel } from './prepared-model.ts';

const post = (m: FromEngine) => process.send?.(m);
const running = new Map<number, AbortController>();
let modelReady: Promise<SegmentModel | undefined> = Promise.resolve(undefined);
let queue: Promise<void> = Promise.resolve();

async function load(init: EngineInit): Promise<SegmentModel | undefined> {
  const t0 = performance.now();
  const tuning = { executionProvider: init.executionProvider, threads: init.threads };
  try {
    if (init.sha256) await verifyFileCached(init.modelPath, init.sha256, init.cacheDir);
    const prepared = init.rewriteGraph
      ? await prepareModel(init.modelPath, init.sha256, init.cacheDir)
      : { path: init.modelPath, rewrites: NO_REWRITES };
    let model: SegmentModel;
    let rewrites = prepared.rewrites;
    try {
      model = await SegmentModel.load(prepared.path, init.sources, tuning);
    } catch (err) {
      // An onnxruntime build without the fused attention operator (some execution providers)
      // still runs the graph as exported.
      if (prepared.path === init.modelPath) throw err;
      model = await SegmentModel.load(init.modelPath, init.sources, tuning);
      rewrites = NO_REWRITES;
    }
    post({ type: 'ready', loadMs: performance.now() - t0, rewrites });
    return model;
  } catch (err) {
    post({ type: 'load-error', message: (err as Error).message });
    return undefined;
  }
}

function separate(msg: Extract<ToEngine, { type: 'separate' }>, init: EngineInit): void {
  const controller = new AbortController();
  running.set(msg.id, controller);
  // Jobs run one after another: the model uses every intra-op thread it was given.
  queue = queue.then(async () => {
    const model = await modelReady;
    try {
      if (!model) throw new Error('the separation model failed to load');
      controller.signal.throwIfAborted();
      const result = await separateFileWith(model, msg.request, {
        sampleRate: ENGINE_SAMPLE_RATE,
        tools: init.tools,
        signal: controller.signal,
        onProgress: (fraction) => post({ type: 'progress', id: msg.id, fraction }),
      });
      post({ type: 'done', id: msg.id, result });
    } catch (err) {
      post({ type: 'error', id: msg.id, message: (err as Error).message, aborted: controller.signal.aborted });
    } finally {
      running.delete(msg.id);
    }
  });
}

let init: EngineInit | undefined;
process.on('message', (msg: ToEngine) => {
  if (msg.type === 'init') {
    init = msg.init;
    modelReady = load(init);
  } else if (msg.type === 'cancel') {
    running.get(msg.id)?.abort(new Error('separation cancelled'));
  } else if (init) {
    separate(msg, init);
  }
});
// The parent is gone (exited, killed): nobody is left to receive the results.
process.on('disconnect', () => process.exit(0));
