// Entry of a separation process that runs an HtdemucsVariant (htdemucs-variant.ts): the product's
// process (src/separation/engine-process.ts) with other graph loaders, built from the same pieces.
import type { EngineInit } from '../src/separation/engine-protocol.ts';
import {
  type GraphLoaders,
  htdemucsModels,
  type LoadedGraph,
  loadFast,
  loadFloat,
  loadGraph,
} from '../src/separation/htdemucs-models.ts';
import { NO_REWRITES, prepareModel } from '../src/separation/prepared-model.ts';
import { serveSeparation } from '../src/separation/separation-server.ts';
import { type HtdemucsVariant, VARIANT_VARIABLE } from './htdemucs-variant.ts';

const variant = JSON.parse(process.env[VARIANT_VARIABLE] ?? '{}') as HtdemucsVariant;

/** The prepared copy (float, or FAST's int8) run as one session. */
async function whole(init: EngineInit, int8MatMuls: boolean): Promise<LoadedGraph> {
  const prepared = await prepareModel(init.modelPath, init.sha256, init.cacheDir, {
    int8MatMuls,
    executionProvider: init.executionProvider,
  });
  return { model: await loadGraph(prepared.path, init), rewrites: { ...prepared.rewrites, parts: 1 } };
}

const loaders: GraphLoaders =
  variant.graph === 'as-exported'
    ? {
        float: async (init) => ({ model: await loadGraph(init.modelPath, init), rewrites: NO_REWRITES }),
        fast: async () => undefined,
      }
    : variant.graph === 'whole'
      ? {
          float: (init) => whole(init, false),
          fast: async (init) => (variant.int8Fast ? whole(init, true) : undefined),
        }
      : { float: loadFloat, fast: variant.int8Fast ? loadFast : async () => undefined };

serveSeparation((init) => htdemucsModels(init, loaders));
