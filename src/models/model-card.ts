import { z } from 'zod';
import { type OutputTypeValue, QUALITIES, type StemName } from '../domain/vocabulary.ts';
import type { ModelSpec } from './registry.ts';

/**
 * `model.json` of a model installed as a folder (`<models>/<name>/model.onnx` + `model.json`): the
 * model's entry from UVR's / python-audio-separator's model data, as it is, plus `"family"`. Keys
 * this service does not use (`is_karaoke`, `balance_value`, ...) are kept and ignored. `overlap`
 * and `enable_denoise` may be added as audio-separator's `mdx_params` of the same names (its
 * defaults: 0.25, false).
 */
export const MdxCard = z.looseObject({
  family: z.literal('mdx'),
  compensate: z.number().positive(),
  mdx_dim_f_set: z.number().int().positive(),
  mdx_dim_t_set: z.number().int().min(1).max(12),
  mdx_n_fft_scale_set: z.number().int().positive(),
  primary_stem: z.string().min(1),
  overlap: z.number().min(0).lt(1).optional(),
  enable_denoise: z.boolean().optional(),
});
export type MdxCard = z.infer<typeof MdxCard>;

/** The model families the separation engine runs; each has its own pre- and post-processing. */
export const MODEL_CARDS = z.discriminatedUnion('family', [MdxCard]);
export type ModelCard = z.infer<typeof MODEL_CARDS>;

/** The files of a folder model. */
export const CARD_FILE = 'model.json';
export const CARD_MODEL_FILE = 'model.onnx';

/** UVR's stem names that are ours; a model whose primary stem is another separates nothing we offer. */
const STEM_OF: Record<string, StemName> = { vocals: 'vocals', instrumental: 'instrumental' };
/** audio-separator's `STEM_PAIR_MAPPER`: the secondary stem of a two-stem model. */
const PAIR: Record<string, StemName> = { vocals: 'instrumental', instrumental: 'vocals' };

/** The two stems of an MDX-Net model, primary first, where both are ours. */
export function mdxStems(card: Pick<MdxCard, 'primary_stem'>): [StemName, StemName] | null {
  const key = card.primary_stem.toLowerCase();
  const primary = STEM_OF[key];
  const secondary = PAIR[key];
  return primary && secondary ? [primary, secondary] : null;
}

const TWO_STEM_TYPES: readonly OutputTypeValue[] = ['VOCALS', 'INSTRUMENTAL', 'BOTH'];

/** A folder model's registry entry, made from its card. */
export function specFromCard(name: string, card: ModelCard): ModelSpec {
  const stems = mdxStems(card);
  const dimT = 2 ** card.mdx_dim_t_set;
  return {
    name,
    description: `MDX-Net ONNX model (primary stem ${card.primary_stem}; n_fft ${card.mdx_n_fft_scale_set}, dim_f ${card.mdx_dim_f_set}, dim_t ${dimT})`,
    license: 'as its publisher says: installed by the operator',
    task: 'separation',
    family: 'mdx',
    sampleRate: 44_100,
    stems: stems ?? [card.primary_stem.toLowerCase()],
    serves: { outputTypes: stems ? TWO_STEM_TYPES : [], tiers: QUALITIES },
    // Not measured on a GPU: CUDA runs it as onnxruntime places it; WebGPU is not offered.
    executionProviders: { cpu: ['cpu'], cuda: ['cuda', 'cpu'] },
    files: [{ name: CARD_MODEL_FILE }, { name: CARD_FILE }],
    source: { kind: 'url' },
    mdx: {
      dimF: card.mdx_dim_f_set,
      dimT,
      nFft: card.mdx_n_fft_scale_set,
      hop: 1024,
      compensate: card.compensate,
      overlap: card.overlap ?? 0.25,
      denoise: card.enable_denoise ?? false,
    },
  };
}
