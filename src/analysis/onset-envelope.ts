import { Framer } from './frames.ts';
import { MagnitudeSpectrum } from './spectrum.ts';

/** STFT settings of the onset envelope: ~46 ms frames every ~23 ms at 22.05 kHz. */
export const ONSET_FRAME = 1024;
export const ONSET_HOP = 512;

/** Log compression constant: log(1 + γ|X|) keeps quiet onsets visible next to loud ones. */
const LOG_GAMMA = 1000;
/**
 * Upper edge of the "body" band: kick and snare fundamentals and bodies live below it, hi-hats and
 * cymbals above. Its separate envelope tells beats from their subdivisions (see tempo.ts).
 */
export const BODY_BAND_HZ = 1500;
/**
 * The body band is summed in third-octave bands from 30 Hz, each weighing the same: per-bin flux
 * would let a broadband clap outweigh a kick whose energy sits in a handful of low bins.
 */
const BODY_LOW_HZ = 30;
const BANDS_PER_OCTAVE = 3;
/**
 * Upper edge of the "low" band (the body band's filters below it): kick drums and bass notes, no
 * snare crack, chord or melody. Its flux is taken on linear magnitudes, not logs: where off-beat
 * comping or a swung eighth carries as many onsets as the beat, the beat's kick and bass note are
 * often the louder ones, an accent that log compression flattens (the beat tracker's phase cue,
 * beats-and-chords.ts; 200, 250 and 320 Hz measured alike, docs/analysis.md).
 */
export const LOW_BAND_HZ = 250;
/** Band of the onset flatness measure (onsetFlatness). */
const FLATNESS_LOW_HZ = 200;
const FLATNESS_HIGH_HZ = 8000;
/** The beat model's bands (beat-model.ts): third octaves from 30 Hz to the Nyquist frequency. */
const MODEL_LOW_HZ = 30;

/**
 * Onset-strength envelope by spectral flux on a log-magnitude spectrogram (Bello et al. 2005, "A
 * tutorial on onset detection in music signals"), with the previous frame maximum-filtered over
 * ±1 bin as in SuperFlux (Böck & Widmer 2013) so vibrato and slow glides do not read as onsets.
 * Streams: push mono samples, read `envelope()` / `bodyEnvelope()` at the end (one value per hop).
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
  private body: number[] = [];
  private low: number[] = [];
  /** Body-band filters entirely below LOW_BAND_HZ. */
  private readonly lowBands: number;
  /** Bin ranges [start, end) of the body-band filters. */
  private readonly bands: [number, number][] = [];
  private prevBands: Float32Array;
  private curBands: Float32Array;
  /** Linear magnitude sums of the body-band filters (the low band's flux reads them). */
  private prevRaw: Float32Array;
  private curRaw: Float32Array;
  private fluxSum = 0;
  private fluxFlatnessSum = 0;
  private readonly flatLo: number;
  private readonly flatHi: number;
  /** Bin ranges [start, end) of the beat model's bands, and their linear magnitude sums per frame. */
  private readonly modelBands: [number, number][] = [];
  private modelFrames: number[] = [];

  constructor(readonly sampleRate: number) {
    this.frameRate = sampleRate / ONSET_HOP;
    const bins = this.spectrum.bins;
    this.mags = new Float32Array(bins);
    this.prev = new Float32Array(bins);
    this.cur = new Float32Array(bins);
    const binHz = sampleRate / ONSET_FRAME;
    for (let lo = BODY_LOW_HZ; lo < BODY_BAND_HZ; lo *= 2 ** (1 / BANDS_PER_OCTAVE)) {
      const start = Math.max(1, Math.round(lo / binHz));
      const end = Math.max(start + 1, Math.round((lo * 2 ** (1 / BANDS_PER_OCTAVE)) / binHz));
      const last = this.bands.at(-1);
      if (last && start < last[1]) {
        if (end > last[1]) last[1] = end; // merge bands narrower than a bin
      } else this.bands.push([start, end]);
    }
    for (let lo = MODEL_LOW_HZ; lo < sampleRate / 2; lo *= 2 ** (1 / BANDS_PER_OCTAVE)) {
      const start = Math.max(1, Math.round(lo / binHz));
      const end = Math.min(bins, Math.max(start + 1, Math.round((lo * 2 ** (1 / BANDS_PER_OCTAVE)) / binHz)));
      const last = this.modelBands.at(-1);
      if (start >= bins) break;
      if (last && start < last[1]) {
        if (end > last[1]) last[1] = end;
      } else this.modelBands.push([start, end]);
    }
    this.lowBands = this.bands.filter(([, end]) => end * binHz <= LOW_BAND_HZ * 1.01).length;
    this.flatLo = Math.max(1, Math.round(FLATNESS_LOW_HZ / binHz));
    this.flatHi = Math.min(bins - 1, Math.round(FLATNESS_HIGH_HZ / binHz));
    this.prevBands = new Float32Array(this.bands.length);
    this.curBands = new Float32Array(this.bands.length);
    this.prevRaw = new Float32Array(this.bands.length);
    this.curRaw = new Float32Array(this.bands.length);
    this.framer = new Framer(ONSET_FRAME, ONSET_HOP, (frame) => this.onFrame(frame));
  }

  push(samples: Float32Array): void {
    this.framer.push(samples);
  }

  private onFrame(frame: Float32Array): void {
    this.spectrum.compute(frame, this.mags);
    const bins = this.mags.length;
    const cur = this.cur;
    for (let k = 0; k < bins; k++) cur[k] = Math.log1p(LOG_GAMMA * this.mags[k]!);
    let flux = 0;
    let body = 0;
    let low = 0;
    const cb = this.curBands;
    for (let b = 0; b < this.bands.length; b++) {
      const [start, end] = this.bands[b]!;
      let e = 0;
      for (let k = start; k < end; k++) e += this.mags[k]!;
      cb[b] = Math.log1p(LOG_GAMMA * e);
      this.curRaw[b] = e;
    }
    if (this.havePrev) {
      const p = this.prev;
      for (let k = 1; k < bins - 1; k++) {
        const ref = Math.max(p[k - 1]!, p[k]!, p[k + 1]!);
        const d = cur[k]! - ref;
        if (d > 0) flux += d;
      }
      for (let b = 0; b < cb.length; b++) {
        const d = cb[b]! - this.prevBands[b]!;
        if (d > 0) body += d;
        const r = this.curRaw[b]! - this.prevRaw[b]!;
        if (b < this.lowBands && r > 0) low += r;
      }
      if (flux > 0) {
        let logSum = 0;
        let sum = 0;
        for (let k = this.flatLo; k <= this.flatHi; k++) {
          logSum += Math.log(this.mags[k]! + 1e-9);
          sum += this.mags[k]!;
        }
        const n = this.flatHi - this.flatLo + 1;
        const flatness = sum > 0 ? Math.exp(logSum / n) / (sum / n) : 0;
        this.fluxSum += flux;
        this.fluxFlatnessSum += flux * flatness;
      }
    }
    for (const [start, end] of this.modelBands) {
      let e = 0;
      for (let k = start; k < end; k++) e += this.mags[k]!;
      this.modelFrames.push(e);
    }
    this.values.push(flux);
    this.body.push(body);
    this.low.push(low);
    this.curBands = this.prevBands;
    this.prevBands = cb;
    const raw = this.curRaw;
    this.curRaw = this.prevRaw;
    this.prevRaw = raw;
    this.cur = this.prev;
    this.prev = cur;
    this.havePrev = true;
  }

  /**
   * Onset-weighted spectral flatness (geometric over arithmetic mean of the magnitudes,
   * 200 Hz-8 kHz, averaged over frames weighted by their flux): how noise-like the sound that makes
   * the onsets is. Drum hits are broadband bursts; a plucked, bowed or synthesised note's onset
   * is a few partials. Tells drum-driven music, where the body band's kicks and snares mark beats,
   * from music whose body band is bass and chords (tempo.ts).
   */
  onsetFlatness(): number {
    return this.fluxSum > 0 ? this.fluxFlatnessSum / this.fluxSum : 0;
  }

  /** Number of the beat model's bands. */
  get modelBandCount(): number {
    return this.modelBands.length;
  }

  /** Linear magnitude sums of the beat model's bands, frames x modelBandCount (beat-model.ts). */
  modelBandFrames(): Float32Array {
    return Float32Array.from(this.modelFrames);
  }

  envelope(): Float32Array {
    return Float32Array.from(this.values);
  }

  /** Flux below BODY_BAND_HZ only: kicks, snares, bass; no cymbals. */
  bodyEnvelope(): Float32Array {
    return Float32Array.from(this.body);
  }

  /** Flux of linear magnitudes below LOW_BAND_HZ: kick drums and bass notes, louder ones weighing more. */
  lowEnvelope(): Float32Array {
    return Float32Array.from(this.low);
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
    for (let i = 0; i < n; i++) mean += envelope[i]!;
    mean = mean / Math.max(1, n) || 1;
    for (let i = 0; i < n; i++) out[i]! += (weight * envelope[i]!) / mean;
  }
  return out;
}
