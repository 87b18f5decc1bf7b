import { RealFft } from '../dsp/fft.ts';
import { type MdxParams, mdxChunkSize } from './mdx-params.ts';

/**
 * The spectrogram around an MDX-Net network, as python-audio-separator's `STFT` class computes it
 * with torch: `torch.stft(n_fft, hop, periodic Hann window, center=True)` (reflect padding of
 * `n_fft / 2`, unnormalised), laid out `[L_re, L_im, R_re, R_im]` by bin and frame, bins at and
 * above `dim_f` dropped and the first three zeroed (`MDXSeparator.run_model`); and back:
 * `torch.istft` of the output with the dropped bins as zeros, which divides the windowed
 * overlap-add by the summed squared window, and crops the centring, giving `hop * (dim_t - 1)`
 * samples again.
 */
export class MdxSpectrogram {
  /** Samples per chunk. */
  readonly chunk: number;
  /** Floats in one chunk's spectrogram: `4 * dim_f * dim_t`. */
  readonly specSize: number;
  private readonly window: Float32Array;
  /** `1 / (n_fft * sum of squared windows)` at each output sample: the inverse FFT is unscaled. */
  private readonly inverseEnvelope: Float32Array;
  private readonly frame: Float32Array;
  private readonly bins: Float32Array;

  private constructor(
    private readonly fft: RealFft,
    private readonly p: Pick<MdxParams, 'nFft' | 'hop' | 'dimF' | 'dimT'>,
  ) {
    const n = p.nFft;
    this.chunk = mdxChunkSize(p);
    this.specSize = 4 * p.dimF * p.dimT;
    this.window = Float32Array.from({ length: n }, (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n));
    const envelope = new Float64Array(this.chunk);
    for (let t = 0; t < p.dimT; t++) {
      const start = t * p.hop - n / 2;
      for (let i = 0; i < n; i++) {
        const j = start + i;
        if (j >= 0 && j < this.chunk) envelope[j]! += this.window[i]! * this.window[i]!;
      }
    }
    // torch.istft refuses a window whose overlap-add has a zero (NOLA); no MDX-Net setting has one.
    this.inverseEnvelope = Float32Array.from(envelope, (e) => {
      if (e < 1e-11) throw new Error(`n_fft ${n} and hop ${p.hop} leave a sample no STFT frame covers`);
      return 1 / (e * n);
    });
    this.frame = new Float32Array(n);
    this.bins = new Float32Array(n + 2);
  }

  static async create(p: Pick<MdxParams, 'nFft' | 'hop' | 'dimF' | 'dimT'>): Promise<MdxSpectrogram> {
    if (p.dimF > p.nFft / 2 + 1)
      throw new Error(`dim_f ${p.dimF} exceeds the ${p.nFft / 2 + 1} bins of n_fft ${p.nFft}`);
    return new MdxSpectrogram(await RealFft.create(p.nFft), p);
  }

  /**
   * `mix` planar stereo, `[channel][chunk]`; writes its spectrogram, `[4][dim_f][dim_t]`, into `out`
   * from `offset` (a batch of chunks is one array).
   */
  analyze(mix: Float32Array, out: Float32Array, offset = 0): void {
    const { nFft: n, hop, dimF, dimT } = this.p;
    const len = this.chunk;
    const half = n / 2;
    for (let c = 0; c < 2; c++) {
      const x = mix.subarray(c * len, (c + 1) * len);
      const re = offset + 2 * c * dimF * dimT;
      const im = re + dimF * dimT;
      for (let t = 0; t < dimT; t++) {
        const start = t * hop - half;
        for (let i = 0; i < n; i++) {
          let j = start + i;
          // torch's reflect padding: the edge sample is not repeated.
          if (j < 0) j = -j;
          else if (j >= len) j = 2 * (len - 1) - j;
          this.frame[i] = x[j]! * this.window[i]!;
        }
        this.fft.forward(this.frame, this.bins);
        for (let f = 0; f < dimF; f++) {
          const keep = f >= 3;
          out[re + f * dimT + t] = keep ? this.bins[2 * f]! : 0;
          out[im + f * dimT + t] = keep ? this.bins[2 * f + 1]! : 0;
        }
      }
    }
  }

  /**
   * The inverse of one chunk's network output, `[4][dim_f][dim_t]` in `spec` from `offset`, into
   * `out` planar stereo `[channel][chunk]`.
   */
  synthesize(spec: Float32Array, out: Float32Array, offset = 0): void {
    const { nFft: n, hop, dimF, dimT } = this.p;
    const len = this.chunk;
    const half = n / 2;
    out.fill(0, 0, 2 * len);
    this.bins.fill(0);
    for (let c = 0; c < 2; c++) {
      const y = out.subarray(c * len, (c + 1) * len);
      const re = offset + 2 * c * dimF * dimT;
      const im = re + dimF * dimT;
      for (let t = 0; t < dimT; t++) {
        for (let f = 0; f < dimF; f++) {
          this.bins[2 * f] = spec[re + f * dimT + t]!;
          this.bins[2 * f + 1] = spec[im + f * dimT + t]!;
        }
        this.fft.inverse(this.bins, this.frame);
        const start = t * hop - half;
        const from = Math.max(0, -start);
        const to = Math.min(n, len - start);
        for (let i = from; i < to; i++) y[start + i]! += this.frame[i]! * this.window[i]!;
      }
      for (let j = 0; j < len; j++) y[j] = y[j]! * this.inverseEnvelope[j]!;
    }
  }

  dispose(): void {
    this.fft.dispose();
  }
}
