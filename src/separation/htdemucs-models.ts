import type { QualityValue } from '../domain/vocabulary.ts';
import type { EngineInit } from './engine-protocol.ts';
import { ExecutionProviderUnavailableError } from './execution-provider.ts';
import { type GraphRewrites, NO_REWRITES, type PreparedModel, prepareModel } from './prepared-model.ts';
import { SegmentModel } from './segment-model.ts';
import { separateFileWith } from './separate-file.ts';
import type { ProcessModels } from './separation-server.ts';

/** A loaded HTDemucs graph and what runs rewritten in it. */
export interface LoadedGraph {
  model: SegmentModel;
  rewrites: GraphRewrites;
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

/** Loads a graph (one file, or its parts in order) on the process's providers and checks its segment. */
export async function loadGraph(paths: string | readonly string[], init: EngineInit): Promise<SegmentModel> {
  return checkSegment(await SegmentModel.load(paths, init.sources, tuningOf(init)), init);
}

/** Loads a prepared graph as its parts (model-split.ts: the same stems, 0.7 GB lower peak). */
async function loadPrepared(prepared: PreparedModel, init: EngineInit): Promise<LoadedGraph> {
  return { model: await loadGraph(prepared.parts, init), rewrites: prepared.rewrites };
}

/**
 * The float model (every tier but FAST, and FAST without its int8 copy): the prepared copy, whose
 * attention runs fused (prepared-model.ts).
 */
export async function loadFloat(init: EngineInit): Promise<LoadedGraph> {
  // On WebGPU the rewrite is a correction, not a speed-up: the graph as exported gives wrong stems
  // there (prepared-model.ts), so there is no falling back to it.
  const webgpu = init.executionProvider === 'webgpu';
  if (webgpu && !init.cacheDir)
    throw new Error('the WebGPU provider runs a prepared copy of the graph: give the engine a cache folder');
  const prepared = await prepareModel(init.modelPath, init.sha256, init.cacheDir, {
    executionProvider: init.executionProvider,
  });
  try {
    return await loadPrepared(prepared, init);
  } catch (err) {
    // An onnxruntime build without the fused attention operator (some execution providers)
    // still runs the graph as exported; WebGPU never does.
    if (prepared.path === init.modelPath || err instanceof ExecutionProviderUnavailableError || webgpu) throw err;
    return { model: await loadGraph(init.modelPath, init), rewrites: NO_REWRITES };
  }
}

/**
 * FAST's model: a copy whose MatMul weights run as int8 (matmul-quantization.ts), split like the
 * float model. Undefined when not loadable (or not on the CPU): FAST then runs the float model like
 * the other tiers.
 */
export async function loadFast(init: EngineInit): Promise<LoadedGraph | undefined> {
  if (init.executionProvider !== 'cpu') return undefined;
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

/** How a process gets its HTDemucs graphs: the float model, and FAST's (undefined: FAST runs the float one). */
export interface GraphLoaders {
  float: (init: EngineInit) => Promise<LoadedGraph>;
  fast: (init: EngineInit) => Promise<LoadedGraph | undefined>;
}

/**
 * HTDemucs in a separation process, from the loaders given (the product's: {@link loadFloat} and
 * {@link loadFast}; a benchmark composes its own variant from the same pieces). It loads the model
 * the first job is expected to need (FAST's copy when `firstTier` is FAST, else the float model);
 * the other one when a job first needs it.
 */
export function htdemucsModels(init: EngineInit, loaders: GraphLoaders): ProcessModels {
  let float: Promise<LoadedGraph> | undefined;
  let fast: Promise<LoadedGraph | undefined> | undefined;
  const floatModel = () => {
    float ??= loaders.float(init);
    return float;
  };
  const forTier = async (tier: QualityValue): Promise<LoadedGraph> => {
    if (tier === 'FAST') {
      fast ??= loaders.fast(init);
      const loaded = await fast;
      if (loaded) return loaded;
    }
    return floatModel();
  };
  return {
    start: async () => (await forTier(init.firstTier ?? 'BEST')).rewrites,
    separate: async (request, { signal, onProgress }) => {
      const { model, rewrites } = await forTier(request.quality);
      signal.throwIfAborted();
      const { sha256, modelPath, executionProvider, threads } = init;
      return separateFileWith(model, request, {
        sampleRate: init.sampleRate,
        tools: init.tools,
        signal,
        onProgress,
        // What the numbers depend on: a checkpoint made with other weights or graph is not resumed.
        modelIdentity: JSON.stringify({ sha256, modelPath, rewrites, executionProvider, threads }),
      });
    },
  };
}

/** The product's HTDemucs: the prepared float graph in parts, and FAST's int8 copy. */
export const productHtdemucs = (init: EngineInit): ProcessModels =>
  htdemucsModels(init, { float: loadFloat, fast: loadFast });
