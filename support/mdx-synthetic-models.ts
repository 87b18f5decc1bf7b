import { encodeOnnxModel } from './onnx-writer.ts';

/**
 * MDX-Net-shaped ONNX models of known behaviour, for tests and benchmarks (no real MDX weights can
 * be had here): spectrograms `[batch, 4, dim_f, dim_t]` in (`[L_re, L_im, R_re, R_im]`), the same
 * shape out, as UVR's exports take and give them. tools/mdx-reference/mdx_reference.py computes
 * what python-audio-separator's pipeline gives around each, in numpy.
 * - `identity`: the spectrogram as it came;
 * - `swap`: left and right exchanged;
 * - `mask`: a fixed spectral mask, a falling ramp over the bins on the left channel and a rising
 *   one on the right (`mdxMask`, the reference's `mask_value`).
 */
export type SyntheticMdx = 'identity' | 'swap' | 'mask';

/** A UVR model-data entry (UVR-MDX-NET-Voc_FT's shape) plus the family, as `model.json` holds it. */
export const SYNTHETIC_MDX_CARD = {
  compensate: 1.021,
  mdx_dim_f_set: 3072,
  mdx_dim_t_set: 8,
  mdx_n_fft_scale_set: 7680,
  primary_stem: 'Vocals',
  family: 'mdx',
} as const;

/** The mask of the `mask` model, `[4][dim_f]` (constant over frames). */
function mdxMask(dimF: number): Float32Array {
  const mask = new Float32Array(4 * dimF);
  for (let f = 0; f < dimF; f++) {
    const x = f / dimF;
    mask[f] = mask[dimF + f] = 1 - 0.75 * x;
    mask[2 * dimF + f] = mask[3 * dimF + f] = 0.25 + 0.75 * x;
  }
  return mask;
}

export function syntheticMdxModel(kind: SyntheticMdx, dimF: number, dimT: number): Buffer {
  const dims = ['batch', 4, dimF, dimT];
  const io = { inputs: [{ name: 'input', dims }], outputs: [{ name: 'output', dims }] };
  if (kind === 'identity') {
    return encodeOnnxModel({
      name: 'mdx_identity',
      ...io,
      initializers: [],
      nodes: [{ op: 'Identity', inputs: ['input'], outputs: ['output'] }],
    });
  }
  if (kind === 'swap') {
    return encodeOnnxModel({
      name: 'mdx_swap',
      ...io,
      initializers: [{ name: 'order', dims: [4], data: BigInt64Array.of(2n, 3n, 0n, 1n) }],
      nodes: [{ op: 'Gather', inputs: ['input', 'order'], outputs: ['output'], attributes: { axis: 1 } }],
    });
  }
  return encodeOnnxModel({
    name: 'mdx_mask',
    ...io,
    initializers: [{ name: 'mask', dims: [1, 4, dimF, 1], data: mdxMask(dimF) }],
    nodes: [{ op: 'Mul', inputs: ['input', 'mask'], outputs: ['output'] }],
  });
}
