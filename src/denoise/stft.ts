import type { RealFft } from '../dsp/fft.ts';

/*
 * The STFT of libDF (DeepFilterNet's `DFState::analysis` / `synthesis`): Vorbis window, one new
 * hop of samples per frame, normalisation applied in the analysis only, so that the inverse
 * (an unscaled inverse FFT, the same window, overlap-add) reconstructs the input exactly,
 * delayed by fftSize - hopSize samples.
 */

/** Vorbis power-complementary window: w[n] = sin(pi/2 * sin^2(pi (n + 1/2) / N)). */
export function vorbisWindow(size: number): Float32Array {
  const w = new Float32Array(size);
  const half = size / 2;
  for (let i = 0; i < size; i++) {
    const s = Math.sin((0.5 * Math.PI * (i + 0.5)) / half);
    w[i] = Math.sin(0.5 * Math.PI * s * s);
  }
  return w;
}

/** libDF's analysis normalisation: hop / (fftSize * sum(w^2)), i.e. 1/N for a 50 % overlap. */
export function windowNorm(window: Float32Array, hopSize: number): number {
  let sum = 0;
  for (const x of window) sum += x * x;
  return (1 / sum) * (hopSize / window.length);
}

/** Streaming analysis: each call consumes one hop and yields one spectrum of fftSize/2+1 bins. */
export class StftAnalyzer {
  private readonly mem: Float32Array;
  private readonly frame: Float32Array;
  private readonly norm: number;

  constructor(
    private readonly fft: RealFft,
    private readonly window: Float32Array,
    private readonly hopSize: number,
  ) {
    this.mem = new Float32Array(window.length - hopSize);
    this.frame = new Float32Array(window.length);
    this.norm = windowNorm(window, hopSize);
  }

  /** Analyses `hop` (hopSize samples) into `out` (interleaved complex, length fftSize + 2). */
  analyze(hop: Float32Array, out: Float32Array): void {
    const { mem, frame, window } = this;
    const m = mem.length;
    for (let i = 0; i < m; i++) frame[i] = mem[i]! * window[i]!;
    for (let i = 0; i < this.hopSize; i++) frame[m + i] = hop[i]! * window[m + i]!;
    // Keep the newest fftSize - hopSize samples for the next frame.
    if (m > this.hopSize) mem.copyWithin(0, this.hopSize);
    mem.set(hop.subarray(0, this.hopSize), m - this.hopSize);
    this.fft.forward(frame, out);
    const norm = this.norm;
    for (let i = 0; i < out.length; i++) out[i]! *= norm;
  }
}

/** Streaming synthesis: each spectrum yields one hop of output samples (overlap-add). */
export class StftSynthesizer {
  private readonly mem: Float32Array;
  private readonly frame: Float32Array;

  constructor(
    private readonly fft: RealFft,
    private readonly window: Float32Array,
    private readonly hopSize: number,
  ) {
    this.mem = new Float32Array(window.length - hopSize);
    this.frame = new Float32Array(window.length);
  }

  /** Synthesises `spec` (interleaved complex) into `out` (hopSize samples). */
  synthesize(spec: Float32Array, out: Float32Array): void {
    const { mem, frame, window, hopSize } = this;
    this.fft.inverse(spec, frame);
    for (let i = 0; i < frame.length; i++) frame[i]! *= window[i]!;
    for (let i = 0; i < hopSize; i++) out[i] = frame[i]! + mem[i]!;
    const m = mem.length;
    if (m > hopSize) mem.copyWithin(0, hopSize);
    const keep = m - hopSize;
    for (let i = 0; i < keep; i++) mem[i]! += frame[hopSize + i]!;
    for (let i = keep; i < m; i++) mem[i] = frame[hopSize + i]!;
  }
}
