// Child-process entry of the separation engine: loads the model once, then runs jobs one at a time
// (decode, DSP, inference, encode), reporting progress to the parent over IPC. A process of its own
// so that its malloc tunables apply (engine-env.ts), its memory goes back to the system when it
// ends, and a crash inside onnxruntime cannot take the API down with it.
import { verifyFileCached } from '../models/verify.ts';
import { serveRpc } from '../offload/rpc.ts';
import type { EngineInit, FromEngine, ToEngine } from './engine-protocol.ts';
import type { GraphRewrites, PreparedModel } from './prepared-model.ts';
import { separateFileWith, type SeparateRequest, type SeparateResult } from './separate-file.ts';
import { SegmentModel } from './segment-model.ts';
import { NO_REWRITES, prepareModel } from './prepared-model.ts';
import { ExecutionProviderUnavailableError } from './execution-provider.ts';

const post = (m: FromEngine) => process.send?.(m);

interface Loaded {
  model: SegmentModel;
  rewrites: GraphRewrites;
}

/** The float model (every tier but FAST, and FAST without its int8 copy); loaded once. */
let floatModel: Promise<Loaded> | undefined;

/** Loads a prepared graph in parts, or whole where `splitGraph` is off, with the rewrites that says. */
async function loadPrepared(prepared: PreparedModel, init: EngineInit): Promise<Loaded> {
  const whole = !init.splitGraph && prepared.parts.length > 1;
  const model = checkSegment(
    await SegmentModel.load(whole ? prepared.path : prepared.parts, init.sources, tuningOf(init)),
    init,
  );
  return { model, rewrites: whole ? { ...prepared.rewrites, parts: 1 } : prepared.rewrites };
}

const tuningOf = (init: EngineInit) => ({
  executionProvider: init.executionProvider,
  threads: init.threads,
  providers: init.providers,
});

/** A graph traced for another segment than its registry entry says would cut every segment wrong. */
function checkSegment(model: SegmentModel, init: EngineInit): SegmentModel {
  if (model.segmentFrames !== init.segmentFrames) {
    throw new Error(
      `the model runs segments of ${model.segmentFrames} frames, but its registry entry says ${init.segmentFrames}`,
    );
  }
  return model;
}

async function loadFloat(init: EngineInit): Promise<Loaded> {
  // On WebGPU the rewrite is a correction, not a speed-up: the graph as exported gives wrong stems
  // there (prepared-model.ts), so it is made whatever `rewriteGraph` says, and never skipped.
  const webgpu = init.executionProvider === 'webgpu';
  if (webgpu && !init.cacheDir)
    throw new Error('the WebGPU provider runs a prepared copy of the graph: give the engine a cache folder');
  const prepared =
    init.rewriteGraph || webgpu
      ? await prepareModel(init.modelPath, init.sha256, init.cacheDir, { executionProvider: init.executionProvider })
      : { path: init.modelPath, parts: [init.modelPath], rewrites: NO_REWRITES };
  try {
    return await loadPrepared(prepared, init);
  } catch (err) {
    // An onnxruntime build without the fused attention operator (some execution providers)
    // still runs the graph as exported; WebGPU never does.
    if (prepared.path === init.modelPath || err instanceof ExecutionProviderUnavailableError || webgpu) throw err;
    const model = await SegmentModel.load(init.modelPath, init.sources, tuningOf(init));
    return { model: checkSegment(model, init), rewrites: NO_REWRITES };
  }
}

/**
 * FAST's model: a copy whose MatMul weights run as int8 (matmul-quantization.ts), split like the
 * float model when `splitGraph`; loaded at the first FAST job, or at start when the first job is
 * expected to be FAST. Undefined when not wanted or not loadable: FAST then runs the float
 * model like the other tiers.
 */
let fastModel: Promise<Loaded | undefined> | undefined;

async function loadFast(init: EngineInit): Promise<Loaded | undefined> {
  if (!init.rewriteGraph || !init.int8Fast || init.executionProvider !== 'cpu') return undefined;
  try {
    const prepared = await prepareModel(init.modelPath, init.sha256, init.cacheDir, { int8MatMuls: true });
    if (prepared.rewrites.int8MatMuls === 0) return undefined;
    return await loadPrepared(prepared, init);
  } catch (err) {
    // The operator's log says so; the error's code only (its message may name a server path).
    const code = (err as NodeJS.ErrnoException)?.code ?? (err instanceof Error ? err.name : 'unknown error');
    process.stderr.write(
      `stemforge: FAST's int8 model could not be prepared (${code}); FAST jobs run the float model\n`,
    );
    return undefined;
  }
}

/**
 * Loads the model the first job is expected to need (FAST's int8 copy when `firstTier` is FAST,
 * else the float model) and says so; the other one is loaded when a job first needs it.
 */
async function load(init: EngineInit): Promise<boolean> {
  const t0 = performance.now();
  try {
    if (init.sha256) await verifyFileCached(init.modelPath, init.sha256, init.cacheDir);
    if (init.firstTier === 'FAST') {
      fastModel = loadFast(init);
      const fast = await fastModel;
      if (fast) {
        post({ type: 'ready', loadMs: performance.now() - t0, rewrites: fast.rewrites });
        return true;
      }
    }
    floatModel = loadFloat(init);
    const { rewrites } = await floatModel;
    post({ type: 'ready', loadMs: performance.now() - t0, rewrites });
    return true;
  } catch (err) {
    post({ type: 'load-error', message: (err as Error).message });
    return false;
  }
}

let loaded: Promise<boolean> = Promise.resolve(false);
let init: EngineInit | undefined;
const serve = serveRpc<SeparateRequest, SeparateResult>(
  post,
  async (request, { signal, onProgress }) => {
    if (!(await loaded) || !init) throw new Error('the separation model failed to load');
    signal.throwIfAborted();
    let forTier: Loaded | undefined;
    if (request.quality === 'FAST') {
      fastModel ??= loadFast(init);
      forTier = await fastModel;
    }
    if (!forTier) {
      floatModel ??= loadFloat(init);
      forTier = await floatModel;
    }
    signal.throwIfAborted();
    const { sha256, modelPath, executionProvider, threads } = init;
    return separateFileWith(forTier.model, request, {
      sampleRate: init.sampleRate,
      tools: init.tools,
      signal,
      onProgress,
      // What the numbers depend on: a checkpoint made with other weights or graph is not resumed.
      modelIdentity: JSON.stringify({ sha256, modelPath, rewrites: forTier.rewrites, executionProvider, threads }),
    });
  },
  () => new Error('separation cancelled'),
);

process.on('message', (msg: ToEngine) => {
  if (msg.type === 'init') {
    init = msg.init;
    loaded = load(init);
  } else if (init) {
    serve(msg);
  }
});
// The parent is gone (exited, killed): nobody is left to receive the results.
process.on('disconnect', () => process.exit(0));
