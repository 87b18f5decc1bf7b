import { Framer } from './frames.ts';
import { MagnitudeSpectrum } from './spectrum.ts';

/** ~370 ms frames at 22.05 kHz: 2.7 Hz bins resolve semitones down to about 100 Hz. */
export const CHROMA_FRAME = 8192;
/** Half-overlapping frames: without overlap the key score measured 0.82 instead of 0.89. */
export const CHROMA_HOP = 4096;
/** Fine pitch-class resolution kept until the tuning is known: 10 cents per bin. */
export const FINE_BINS = 120;

/** The lowest pitch the chroma reads (A1). */
export const MIN_HZ = 55;
const REFERENCE_HZ = 440;
/** Peaks below this fraction of the frame's strongest peak are ignored (-60 dB). */
const PEAK_FLOOR = 1e-3;
/** Peaks below this frequency also feed the bass chroma. */
export const BASS_MAX_HZ = 250;

/**
 * How a frame's spectral peaks become pitch weight, where a benchmark varies it
 * (support/chroma-variants.ts: whitening, log weighting, sub-harmonic summation, harmonic
 * subtraction, other contrasts and frequency limits; docs/analysis.md). The product runs the
 * defaults: every interpolated peak's magnitude, fundamentals only, and only peaks at least 1.5
 * times their local mean. The peak contrast is what keeps drums out of the chroma: with a drum stem
 * mixed in 6 dB above the music the key score fell 0.60 -> 0.47 without it, 0.59 -> 0.57 with it;
 * whitening, sub-harmonic summation and log weighting measured no better.
 */
export interface PeakShaping {
  /** Peaks above this frequency are ignored (default 5 kHz: mostly upper partials, which blur the mode). */
  maxHz?: number;
  /** Whether a peak counts, from its bin's magnitude and the local mean around it (±1/6 octave). */
  counts?(magnitude: number, localMean: number): boolean;
  /** A counted peak's weight, from its interpolated magnitude, the local mean and the frame's maximum. */
  weight?(amp: number, localMean: number, frameMax: number): number;
  /** Changes the frame's `n` peaks (sorted by frequency) in place before they are added. */
  adjust?(hz: Float64Array, amp: Float64Array, n: number): void;
  /** Adds one peak to the frame's pitch histogram through `add` (default: at its own frequency). */
  spread?(hz: number, amp: number, add: (hz: number, weight: number) => void): void;
}

export interface ChromaOptions {
  /** Also accumulate the bass chroma (`bassHistogram`, the chords' bass). */
  bass?: boolean;
  /** Also keep every frame's normalised 10-cent histogram (`frameHistograms`, the chords' frames). */
  frames?: boolean;
  /** A benchmark's peak shaping; the product's is the default. */
  shaping?: PeakShaping;
}

const DEFAULT_MAX_HZ = 5000;
const PEAK_CONTRAST = 1.5;
const countsByContrast = (magnitude: number, localMean: number) => magnitude >= PEAK_CONTRAST * localMean;

/**
 * Harmonic pitch-class profile in the manner of Gómez 2006 ("Tonal description of polyphonic audio
 * for music content processing"): spectral peaks, located by parabolic interpolation, add their
 * magnitude to a 10-cent pitch-class histogram. (Gómez sums energy; magnitude measured better here:
 * with energy the bass root and fifth drowned the thirds that tell major from minor.) The tuning
 * offset is estimated from the same histogram once the whole file is seen, then the histogram is
 * folded to 12 semitone classes with a cos² weighting of ±50 cents around each tuned semitone.
 * Each frame is normalised before it is summed, so a loud chorus does not outweigh the verses.
 */
export class ChromaAccumulator {
  private readonly framer: Framer;
  private readonly spectrum = new MagnitudeSpectrum(CHROMA_FRAME);
  private readonly mags: Float32Array;
  private readonly frameHist = new Float64Array(FINE_BINS);
  private readonly total = new Float64Array(FINE_BINS);
  private readonly minBin: number;
  private readonly maxBin: number;
  private readonly bassFrame = new Float64Array(FINE_BINS);
  private readonly bassTotal = new Float64Array(FINE_BINS);
  private readonly env: Float64Array;
  private readonly prefix: Float64Array;
  private readonly opts: ChromaOptions;
  private readonly shaping: PeakShaping;
  private readonly counts: (magnitude: number, localMean: number) => boolean;
  /** Adds one pitch to the frame's histograms (and the bass's, below BASS_MAX_HZ), for `spread`. */
  private readonly addPitchOfFrame = (f: number, e: number) => {
    addPitch(this.frameHist, f, e);
    this.frameSum += e;
    if (this.opts.bass && f < BASS_MAX_HZ) {
      addPitch(this.bassFrame, f, e);
      this.frameBassSum += e;
    }
  };
  private frameSum = 0;
  private frameBassSum = 0;
  /** The frame's selected peaks (frequency, weight), at most one per two bins. */
  private readonly peakHz: Float64Array;
  private readonly peakAmp: Float64Array;
  private readonly perFrame: Float64Array[] = [];
  private readonly perFrameBass: Float64Array[] = [];
  private readonly perFrameIndex: number[] = [];
  /** Frames seen, silent ones included: the stream position of the next frame. */
  private position = 0;
  private frames = 0;
  private contrastSum = 0;

  constructor(
    readonly sampleRate: number,
    options: ChromaOptions = {},
  ) {
    this.opts = options;
    this.shaping = options.shaping ?? {};
    this.counts = this.shaping.counts ?? countsByContrast;
    this.mags = new Float32Array(this.spectrum.bins);
    this.env = new Float64Array(this.spectrum.bins);
    this.prefix = new Float64Array(this.spectrum.bins + 1);
    const binHz = sampleRate / CHROMA_FRAME;
    this.minBin = Math.max(2, Math.floor(MIN_HZ / binHz));
    this.maxBin = Math.min(this.spectrum.bins - 2, Math.ceil((this.shaping.maxHz ?? DEFAULT_MAX_HZ) / binHz));
    this.peakHz = new Float64Array((this.maxBin >> 1) + 2);
    this.peakAmp = new Float64Array(this.peakHz.length);
    this.framer = new Framer(CHROMA_FRAME, CHROMA_HOP, (frame) => this.onFrame(frame));
  }

  push(samples: Float32Array): void {
    this.framer.push(samples);
  }

  private onFrame(frame: Float32Array): void {
    const index = this.position++;
    const m = this.mags;
    const o = this.opts;
    const shape = this.shaping;
    this.spectrum.compute(frame, m);
    let maxMag = 0;
    for (let k = this.minBin; k <= this.maxBin; k++) if (m[k]! > maxMag) maxMag = m[k]!;
    // Silence and near-silence carry no key.
    if (maxMag < 1e-4) return;
    this.localMean();
    const floor = maxMag * PEAK_FLOOR;
    const binHz = this.sampleRate / CHROMA_FRAME;
    const h = this.frameHist;
    const bass = this.bassFrame;
    h.fill(0);
    bass.fill(0);
    let peakSum = 0;
    let n = 0;
    for (let k = this.minBin; k <= this.maxBin; k++) {
      const v = m[k]!;
      if (v < floor || v <= m[k - 1]! || v < m[k + 1]!) continue;
      // Parabolic interpolation on log magnitudes (Smith & Serra 1987, PARSHL).
      const a = Math.log(m[k - 1]! + 1e-12);
      const b = Math.log(v);
      const c = Math.log(m[k + 1]! + 1e-12);
      const denom = a - 2 * b + c;
      const delta = denom < 0 ? (0.5 * (a - c)) / denom : 0;
      const hz = (k + delta) * binHz;
      const amp = Math.exp(b - 0.25 * (a - c) * delta);
      peakSum += amp;
      // The key reads only peaks that stand out of their neighbourhood: partials, not the
      // broadband peaks of drums and noise.
      if (!this.counts(v, this.env[k]!)) continue;
      this.peakHz[n] = hz;
      this.peakAmp[n++] = shape.weight ? shape.weight(amp, this.env[k]!, maxMag) : amp;
    }
    shape.adjust?.(this.peakHz, this.peakAmp, n);
    this.frameSum = 0;
    this.frameBassSum = 0;
    for (let j = 0; j < n; j++) {
      const hz = this.peakHz[j]!;
      const amp = this.peakAmp[j]!;
      if (!(amp > 0)) continue;
      if (shape.spread) shape.spread(hz, amp, this.addPitchOfFrame);
      else this.addPitchOfFrame(hz, amp);
    }
    const sum = this.frameSum;
    const bassSum = this.frameBassSum;
    // A frame with peaks counts (towards the minimum length and the gate) even when none stands out.
    if (peakSum <= 0) return;
    if (sum > 0) for (let i = 0; i < FINE_BINS; i++) this.total[i]! += h[i]! / sum;
    if (o.frames) {
      this.perFrame.push(sum > 0 ? h.map((v) => v / sum) : new Float64Array(FINE_BINS));
      this.perFrameIndex.push(index);
      if (o.bass) this.perFrameBass.push(bassSum > 0 ? bass.map((v) => v / bassSum) : new Float64Array(FINE_BINS));
    }
    if (bassSum > 0) for (let i = 0; i < FINE_BINS; i++) this.bassTotal[i]! += bass[i]! / bassSum;
    this.frames++;
    this.contrastSum += sum > 0 ? frameContrast(h) : 0;
  }

  /** Local mean magnitude over ±1/6 octave (at least ±3 bins) around every bin, into `env`. */
  private localMean(): void {
    const m = this.mags;
    const p = this.prefix;
    const n = m.length;
    p[0] = 0;
    for (let k = 0; k < n; k++) p[k + 1] = p[k]! + m[k]!;
    const r = 2 ** (1 / 6) - 1;
    for (let k = this.minBin; k <= this.maxBin; k++) {
      const w = Math.max(3, Math.round(k * r));
      const lo = Math.max(0, k - w);
      const hi = Math.min(n, k + w + 1);
      this.env[k] = (p[hi]! - p[lo]!) / (hi - lo);
    }
  }

  /** Frames that contributed (non-silent). */
  get frameCount(): number {
    return this.frames;
  }

  /** Sum over frames of each frame's chroma contrast (see frameContrast), for adding stems. */
  get contrastTotal(): number {
    return this.contrastSum;
  }

  /** The accumulated 10-cent histogram (for adding stems together). */
  fineHistogram(): Float64Array {
    return this.total.slice();
  }

  /** Every counted frame's 10-cent histogram, each summing to 1 (zeros where no peak stood out). */
  frameHistograms(): Float64Array[] {
    return this.perFrame.slice();
  }

  /** Where each of `frameHistograms` sits in the stream: frame i starts at sample i × CHROMA_HOP. */
  frameIndices(): number[] {
    return this.perFrameIndex.slice();
  }

  /** Every counted frame's histogram of the peaks below BASS_MAX_HZ (needs `bass` and `frames`). */
  bassFrameHistograms(): Float64Array[] {
    return this.perFrameBass.slice();
  }

  /** The key histogram from the peaks below BASS_MAX_HZ only: the bass line, which tends to the tonic. */
  bassHistogram(): Float64Array {
    return this.bassTotal.slice();
  }
}

/** Adds `e` at frequency `hz` to a 10-cent pitch-class histogram (C = bin 0), split between two bins. */
function addPitch(h: Float64Array, hz: number, e: number): void {
  const semis = 12 * Math.log2(hz / REFERENCE_HZ) + 9; // 0 = C
  const pos = ((((semis * FINE_BINS) / 12) % FINE_BINS) + FINE_BINS) % FINE_BINS;
  const i0 = Math.floor(pos);
  const f = pos - i0;
  h[i0 % FINE_BINS]! += e * (1 - f);
  h[(i0 + 1) % FINE_BINS]! += e * f;
}

/**
 * How much of a 10-cent histogram's energy sits on one semitone grid (0-1): the length of the
 * energy-weighted mean of each bin's position within its semitone, as a phase. Held notes of any
 * instrument on one tuning give a high value; gliding pitch (speech) and noise spread it out.
 */
export function pitchGrid(fine: Float64Array): number {
  const per = FINE_BINS / 12;
  let re = 0;
  let im = 0;
  let total = 0;
  for (let i = 0; i < FINE_BINS; i++) {
    const phase = (2 * Math.PI * (i % per)) / per;
    re += fine[i]! * Math.cos(phase);
    im += fine[i]! * Math.sin(phase);
    total += fine[i]!;
  }
  return total > 0 ? Math.hypot(re, im) / total : 0;
}

/**
 * Tuning offset in fractions of a semitone (-0.5..0.5) from a 10-cent histogram: the circular mean
 * of the deviation from equal temperament, weighted by energy.
 */
export function estimateTuning(fine: Float64Array): number {
  const per = FINE_BINS / 12;
  let re = 0;
  let im = 0;
  for (let i = 0; i < FINE_BINS; i++) {
    const phase = (2 * Math.PI * (i % per)) / per;
    re += fine[i]! * Math.cos(phase);
    im += fine[i]! * Math.sin(phase);
  }
  if (re === 0 && im === 0) return 0;
  return Math.atan2(im, re) / (2 * Math.PI);
}

/** Folds a 10-cent histogram to 12 pitch classes (C = 0) around the tuned semitone centres. */
export function foldChroma(fine: Float64Array, tuning: number): Float64Array {
  const per = FINE_BINS / 12;
  const chroma = new Float64Array(12);
  for (let i = 0; i < FINE_BINS; i++) {
    if (fine[i] === 0) continue;
    const semis = i / per - tuning;
    const pc = Math.round(semis);
    const dist = semis - pc; // -0.5..0.5 semitone
    const w = Math.cos(Math.PI * dist) ** 2;
    chroma[((pc % 12) + 12) % 12]! += fine[i]! * w;
  }
  return chroma;
}

/**
 * Coefficient of variation of one frame's 12 semitone classes (10-cent bins summed in
 * 100-cent groups, centred on equal temperament at A = 440 Hz; a tuning offset only blurs it a
 * little). Measured per frame, so unlike the whole file's chroma it does not flatten as a song
 * moves through its chords: a frame of pitched sound holds a few classes, a frame of noise all
 * twelve.
 */
function frameContrast(h: Float64Array): number {
  const per = FINE_BINS / 12;
  const c = new Float64Array(12);
  for (let i = 0; i < FINE_BINS; i++) c[Math.floor((i + per / 2) / per) % 12]! += h[i]!;
  let mean = 0;
  for (const v of c) mean += v;
  mean /= 12;
  if (!(mean > 0)) return 0;
  let sq = 0;
  for (const v of c) sq += (v - mean) ** 2;
  return Math.sqrt(sq / 12) / mean;
}
