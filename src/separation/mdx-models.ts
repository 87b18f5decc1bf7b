import type { EngineInit } from './engine-protocol.ts';
import { MdxModel } from './mdx-model.ts';
import { type LoadedMdx, separateMdxFile } from './mdx-separate.ts';
import { MdxSpectrogram } from './mdx-spectrogram.ts';
import { NO_REWRITES } from './prepared-model.ts';
import type { ProcessModels } from './separation-server.ts';
import type { StemName } from './stems.ts';

/**
 * Chunks per network run. Measured with bench/separate-mdx.ts (docs/models.md): batching adds the
 * onnxruntime call overhead of fewer runs against a larger working set.
 */
export const MDX_BATCH = 1;

/** An MDX-Net model in a separation process: one network for every tier (the model card sets overlap and denoise). */
export function mdxModels(init: EngineInit): ProcessModels {
  const params = init.mdx;
  if (!params) throw new Error('an MDX-Net model needs its model card');
  const [primary, secondary] = init.sources as StemName[];
  if (!primary || !secondary) throw new Error(`an MDX-Net model has two stems, not ${init.sources.join(', ')}`);
  let loaded: Promise<LoadedMdx> | undefined;
  const load = () => {
    loaded ??= (async () => ({
      model: await MdxModel.load(init.modelPath, params, init),
      spectrogram: await MdxSpectrogram.create(params),
      params,
      sources: [primary, secondary] as const,
      batch: MDX_BATCH,
      timings: { dspMs: 0 },
    }))();
    return loaded;
  };
  return {
    start: async () => {
      await load();
      return NO_REWRITES;
    },
    separate: async (request, { signal, onProgress }) =>
      separateMdxFile(await load(), request, { sampleRate: init.sampleRate, tools: init.tools, signal, onProgress }),
  };
}
