/**
 * An MDX-Net ONNX model's shape and settings, as UVR's model data describes it
 * (`mdx_dim_f_set`, `mdx_dim_t_set`, `mdx_n_fft_scale_set`, `compensate`, `primary_stem`) and as
 * python-audio-separator's MDX separator runs it by default (hop 1024, overlap 0.25, no denoise
 * pass, segment size = dim_t).
 */
export interface MdxParams {
  /** Frequency bins the network sees (`mdx_dim_f_set`); bins at and above it are dropped. */
  dimF: number;
  /** STFT frames per chunk: `2 ** mdx_dim_t_set`. */
  dimT: number;
  /** FFT size (`mdx_n_fft_scale_set`). */
  nFft: number;
  /** STFT hop: 1024 for every UVR MDX-Net model. */
  hop: number;
  /** The primary stem is `compensate` x the network's output. */
  compensate: number;
  /** Fraction of each chunk shared with the next (audio-separator's `overlap`, default 0.25). */
  overlap: number;
  /** Also run the network on the negated spectrogram and average (audio-separator's `enable_denoise`). */
  denoise: boolean;
}

/** Samples per chunk: `hop * (dim_t - 1)`, which the centred STFT turns into exactly `dim_t` frames. */
export const mdxChunkSize = (p: Pick<MdxParams, 'hop' | 'dimT'>): number => p.hop * (p.dimT - 1);

/** Samples trimmed from each side of a chunk's output: `n_fft / 2`. */
export const mdxTrim = (p: Pick<MdxParams, 'nFft'>): number => p.nFft / 2;
