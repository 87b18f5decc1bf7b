import FFT from 'fft.js';

/** Periodic Hann window (the STFT's analysis window). */
export function hann(size: number): Float32Array {
  const w = new Float32Array(size);
  for (let i = 0; i < size; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / size);
  return w;
}

/**
 * Magnitude spectrum of Hann-windowed real frames through fft.js (a maintained radix-4 FFT; no FFT is
 * written here). Magnitudes are scaled by the window sum, so a full-scale sine reads about 0.5.
 */
export class MagnitudeSpectrum {
  readonly bins: number;
  private readonly fft: FFT;
  private readonly window: Float32Array;
  private readonly input: Float64Array;
  private readonly out: Float64Array;
  private readonly scale: number;

  constructor(readonly size: number) {
    this.fft = new FFT(size);
    this.window = hann(size);
    this.input = new Float64Array(size);
    this.out = new Float64Array(2 * size);
    this.bins = size / 2 + 1;
    this.scale = 1 / this.window.reduce((a, b) => a + b, 0);
  }

  /** Writes |X(k)| for k = 0..size/2 into `mags` (length `bins`). */
  compute(frame: Float32Array, mags: Float32Array): void {
    for (let i = 0; i < this.size; i++) this.input[i] = frame[i]! * this.window[i]!;
    this.fft.realTransform(this.out, this.input);
    for (let k = 0; k < this.bins; k++) {
      const re = this.out[2 * k]!;
      const im = this.out[2 * k + 1]!;
      mags[k] = Math.sqrt(re * re + im * im) * this.scale;
    }
  }
}
