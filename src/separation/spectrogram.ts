import { RealFft } from '../dsp/fft.ts';
import { HTDEMUCS_HOP, HTDEMUCS_NFFT, HTDEMUCS_SEGMENT_FRAMES } from './htdemucs-shapes.ts';

/**
 * The spectrogram pre- and post-processing of HTDemucs (Rouard et al., "Hybrid Transformers for
 * Music Source Separation", ICASSP 2023), reproducing `HTDemucs._spec` / `_ispec` of the reference
 * Python code:
 *
 * - `_spec`: reflect-pad the segment by `3 * hop / 2` on the left and up to a whole number of hops
 *   plus the same on the right, `torch.stft(n_fft=4096, hop=1024, hann, normalized, center)`, drop
 *   the Nyquist bin and keep frames `2 .. 2 + ceil(L / hop)`. Worked through, frame `t` covers
 *   samples `[t * hop - 1536, t * hop + 2560)` of the segment, mirrored at both ends, and the centre
 *   padding of `torch.stft` is never reached, so it is not materialised here.
 * - `_ispec`: put back a zero Nyquist bin and two zero frames on each side, `torch.istft` with the
 *   same window and `length`, crop the padding. Output sample `j` is the windowed overlap-add of the
 *   frames that cover it divided by the summed squared window of all frames, the zero ones included
 *   (so the first and last 2.5 k samples are not a perfect reconstruction: the network's time branch
 *   is trained to complete them).
 *
 * The spectrogram layout is HTDemucs' "complex as channels": `[channel * 2 + (0 re | 1 im), bin, frame]`.
 */
export class DemucsSpectrogram {
  readonly bins = HTDEMUCS_NFFT / 2;
  readonly frames: number;
  /** Window scaled by `1/sqrt(n_fft)` (torch's `normalized=True`). */
  private readonly analysisWindow: Float32Array;
  /** Window scaled by `sqrt(n_fft) / n_fft` (normalized inverse of an unscaled FFT). */
  private readonly synthesisWindow: Float32Array;
  /** `1 / sum of squared windows` at each output sample. */
  private readonly inverseEnvelope: Float32Array;
  /** Offset of frame 0's first sample relative to the segment start. */
  private readonly frameOrigin = -((HTDEMUCS_HOP / 2) * 3);

  private constructor(
    private readonly fft: RealFft,
    readonly length: number,
  ) {
    const n = HTDEMUCS_NFFT;
    this.frames = Math.ceil(length / HTDEMUCS_HOP);
    const hann = new Float64Array(n);
    for (let i = 0; i < n; i++) hann[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / n);
    this.analysisWindow = Float32Array.from(hann, (w) => w / Math.sqrt(n));
    this.synthesisWindow = Float32Array.from(hann, (w) => w / Math.sqrt(n));
    const envelope = new Float64Array(length);
    // Frames -2 .. frames+1: the zero frames `_ispec` pads on each side still count in the envelope.
    for (let t = -2; t < this.frames + 2; t++) {
      const start = t * HTDEMUCS_HOP + this.frameOrigin;
      for (let i = 0; i < n; i++) {
        const j = start + i;
        if (j >= 0 && j < length) envelope[j]! += hann[i]! * hann[i]!;
      }
    }
    this.inverseEnvelope = Float32Array.from(envelope, (e) => (e > 1e-11 ? 1 / e : 0));
  }

  /** @param length samples per segment (HTDemucs' training length unless testing). */
  static async create(length = HTDEMUCS_SEGMENT_FRAMES): Promise<DemucsSpectrogram> {
    if (length <= HTDEMUCS_HOP * 2) throw new Error('segment too short for the HTDemucs spectrogram');
    return new DemucsSpectrogram(await RealFft.create(HTDEMUCS_NFFT), length);
  }

  /** Size of the spectrogram of `channels` audio channels, in floats. */
  specSize(channels: number): number {
    return channels * 2 * this.bins * this.frames;
  }

  /**
   * Forward transform of planar channels (each `length` samples) into `out`, laid out
   * `[channel * 2 + re/im][bin][frame]`, the model's second input.
   */
  analyze(channels: readonly Float32Array[], out: Float32Array): void {
    const { bins, frames, length, fft } = this;
    const n = HTDEMUCS_NFFT;
    const w = this.analysisWindow;
    const last = length - 1;
    for (let c = 0; c < channels.length; c++) {
      const x = channels[c]!;
      const reBase = c * 2 * bins * frames;
      const imBase = reBase + bins * frames;
      for (let t = 0; t < frames; t++) {
        const input = fft.input;
        const start = t * HTDEMUCS_HOP + this.frameOrigin;
        for (let i = 0; i < n; i++) {
          let j = start + i;
          // Reflect padding without repeating the edge sample (torch's 'reflect').
          if (j < 0) j = -j;
          else if (j > last) j = 2 * last - j;
          input[i] = x[j]! * w[i]!;
        }
        fft.forwardOrdered();
        const z = fft.output;
        out[reBase + t] = z[0]!;
        out[imBase + t] = 0;
        for (let f = 1; f < bins; f++) {
          out[reBase + f * frames + t] = z[2 * f]!;
          out[imBase + f * frames + t] = z[2 * f + 1]!;
        }
      }
    }
  }

  /**
   * Inverse transform of `rows` spectrograms laid out `[row * 2 + re/im][bin][frame]` (the model's
   * spectral output, rows = sources x channels), added into `target` laid out `[row][sample]`.
   */
  synthesizeAdd(spec: Float32Array, rows: number, target: Float32Array): void {
    const { bins, frames, length, fft } = this;
    const n = HTDEMUCS_NFFT;
    const w = this.synthesisWindow;
    const env = this.inverseEnvelope;
    for (let r = 0; r < rows; r++) {
      const reBase = r * 2 * bins * frames;
      const imBase = reBase + bins * frames;
      const outBase = r * length;
      for (let t = 0; t < frames; t++) {
        const input = fft.input;
        input[0] = spec[reBase + t]!;
        input[1] = 0; // the Nyquist bin HTDemucs drops
        for (let f = 1; f < bins; f++) {
          input[2 * f] = spec[reBase + f * frames + t]!;
          input[2 * f + 1] = spec[imBase + f * frames + t]!;
        }
        fft.inverseOrdered();
        const y = fft.output;
        const start = t * HTDEMUCS_HOP + this.frameOrigin;
        const i0 = Math.max(0, -start);
        const i1 = Math.min(n, length - start);
        for (let i = i0; i < i1; i++) {
          const j = start + i;
          target[outBase + j]! += y[i]! * w[i]! * env[j]!;
        }
      }
    }
  }

  dispose(): void {
    this.fft.dispose();
  }
}
