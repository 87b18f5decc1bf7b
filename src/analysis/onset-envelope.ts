import { Framer } from './frames.ts';
import { MagnitudeSpectrum } from './spectrum.ts';

/** STFT settings of the onset envelope: ~46 ms frames every ~23 ms at 22.05 kHz. */
export const ONSET_FRAME = 1024;
export const ONSET_HOP = 512;

/** Log compression constant: log(1 + γ|X|) keeps quiet onsets visible next to loud ones. */
const LOG_GAMMA = 1000;

/**
 * Onset-strength envelope by spectral flux on a log-magnitude spectrogram (Bello et al. 2005, "A
 * tutorial on onset detection in music signals"), with the previous frame maximum-filtered over
 * ±1 bin as in SuperFlux (Böck & Widmer 2013) so vibrato and slow glides do not read as onsets.
 * Streams: push mono samples, read `envelope()` at the end (one value per hop).
 */
export class OnsetEnvelope {
  readonly frameRate: number;
  private readonly framer: Framer;
  private readonly spectrum = new MagnitudeSpectrum(ONSET_FRAME);
  private readonly mags: Float32Array;
  private prev: Float32Array;
  private cur: Float32Array;
  private havePrev = false;
  private values: number[] = [];

  constructor(readonly sampleRate: number) {
    this.frameRate = sampleRate / ONSET_HOP;
    const bins = this.spectrum.bins;
    this.mags = new Float32Array(bins);
    this.prev = new Float32Array(bins);
    this.cur = new Float32Array(bins);
    this.framer = new Framer(ONSET_FRAME, ONSET_HOP, (frame) => this.onFrame(frame));
  }

  push(samples: Float32Array): void {
    this.framer.push(samples);
  }

  private onFrame(frame: Float32Array): void {
    this.spectrum.compute(frame, this.mags);
    const bins = this.mags.length;
    const cur = this.cur;
    for (let k = 0; k < bins; k++) cur[k] = Math.log1p(LOG_GAMMA * this.mags[k]);
    let flux = 0;
    if (this.havePrev) {
      const p = this.prev;
      for (let k = 1; k < bins - 1; k++) {
        const ref = Math.max(p[k - 1], p[k], p[k + 1]);
        const d = cur[k] - ref;
        if (d > 0) flux += d;
      }
    }
    this.values.push(flux);
    this.cur = this.prev;
    this.prev = cur;
    this.havePrev = true;
  }

  envelope(): Float32Array {
    return Float32Array.from(this.values);
  }
}

/** Adds onset envelopes of stems frame by frame (truncated to the shortest), with weights. */
export function mixEnvelopes(parts: { envelope: Float32Array; weight: number }[]): Float32Array {
  if (parts.length === 0) return new Float32Array(0);
  const n = Math.min(...parts.map((p) => p.envelope.length));
  const out = new Float32Array(n);
  for (const { envelope, weight } of parts) {
    // Each stem is normalised first so a quiet drum stem is not drowned by a loud bass stem.
    let mean = 0;
    for (let i = 0; i < n; i++) mean += envelope[i];
    mean = mean / Math.max(1, n) || 1;
    for (let i = 0; i < n; i++) out[i] += (weight * envelope[i]) / mean;
  }
  return out;
}
