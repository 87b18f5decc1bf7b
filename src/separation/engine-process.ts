// Child-process entry of the separation engine: loads the model once, then runs jobs one at a time
// (decode, DSP, inference, encode), reporting progress to the parent over IPC. A process of its own
// so that its malloc tunables apply (engine-env.ts), its memory goes back to the system when it
// ends, and a crash inside onnxruntime cannot take the API down with it.
import { ENGINE_SAMPLE_RATE } from '../audio/tools.ts';
import { verifyFileCached } from '../models/verify.ts';
import { serveRpc } from '../offload/rpc.ts';
import type { EngineInit, FromEngine, ToEngine } from './engine-protocol.ts';
import { separateFileWith, type SeparateRequest, type SeparateResult } from './separate-file.ts';
import { SegmentModel } from './segment-model.ts';
import { NO_REWRITES, prepareModel } from './prepared-model.ts';
import { ExecutionProviderUnavailableError } from './execution-provider.ts';

const post = (m: FromEngine) => process.send?.(m);
let modelReady: Promise<SegmentModel | undefined> = Promise.resolve(undefined);

async function load(init: EngineInit): Promise<SegmentModel | undefined> {
  const t0 = performance.now();
  const tuning = { executionProvider: init.executionProvider, threads: init.threads };
  try {
    if (init.sha256) await verifyFileCached(init.modelPath, init.sha256, init.cacheDir);
    const prepared = init.rewriteGraph
      ? await prepareModel(init.modelPath, init.sha256, init.cacheDir)
      : { path: init.modelPath, parts: [init.modelPath], rewrites: NO_REWRITES };
    let model: SegmentModel;
    const whole = !init.splitGraph && prepared.parts.length > 1;
    let rewrites = whole ? { ...prepared.rewrites, parts: 1 } : prepared.rewrites;
    try {
      model = await SegmentModel.load(whole ? prepared.path : prepared.parts, init.sources, tuning);
    } catch (err) {
      // An onnxruntime build without the fused attention operator (some execution providers)
      // still runs the graph as exported.
      if (prepared.path === init.modelPath || err instanceof ExecutionProviderUnavailableError) throw err;
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

/**
 * FAST's model: a copy whose MatMul weights run as int8 (matmul-quantization.ts), prepared and
 * loaded at the first FAST job, and run whole unless `splitFast` (faster; a higher peak). Undefined when not wanted or not loadable: FAST then runs the float
 * model like the other tiers.
 */
let fastModel: Promise<SegmentModel | undefined> | undefined;

async function loadFast(init: EngineInit): Promise<SegmentModel | undefined> {
  if (!init.rewriteGraph || !init.int8Fast || init.executionProvider !== 'cpu') return undefined;
  try {
    const prepared = await prepareModel(init.modelPath, init.sha256, init.cacheDir, { int8MatMuls: true });
    if (prepared.rewrites.int8MatMuls === 0) return undefined;
    const tuning = { executionProvider: init.executionProvider, threads: init.threads };
    const split = init.splitGraph && init.splitFast;
    return await SegmentModel.load(split ? prepared.parts : prepared.path, init.sources, tuning);
  } catch (err) {
    // The operator's log says so; the error's code only (its message may name a server path).
    const code = (err as NodeJS.ErrnoException)?.code ?? (err instanceof Error ? err.name : 'unknown error');
    process.stderr.write(
      `stemforge: FAST's int8 model could not be prepared (${code}); FAST jobs run the float model\n`,
    );
    return undefined;
  }
}

let init: EngineInit | undefined;
const serve = serveRpc<SeparateRequest, SeparateResult>(
  post,
  async (request, { signal, onProgress }) => {
    const model = await modelReady;
    if (!model || !init) throw new Error('the separation model failed to load');
    signal.throwIfAborted();
    let forTier = model;
    if (request.quality === 'FAST') {
      fastModel ??= loadFast(init);
      forTier = (await fastModel) ?? model;
    }
    signal.throwIfAborted();
    return separateFileWith(forTier, request, {
      sampleRate: ENGINE_SAMPLE_RATE,
      tools: init.tools,
      signal,
      onProgress,
    });
  },
  () => new Error('separation cancelled'),
);

process.on('message', (msg: ToEngine) => {
  if (msg.type === 'init') {
    init = msg.init;
    modelReady = load(init);
  } else if (init) {
    serve(msg);
  }
});
// The parent is gone (exited, killed): nobody is left to receive the results.
process.on('disconnect', () => process.exit(0));
