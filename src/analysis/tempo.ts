import { autocorrelation, sampleAt } from './autocorrelation.ts';

export interface TempoOptions {
  minBpm?: number;
  maxBpm?: number;
  /** Centre of the log-normal tempo prior (BPM). */
  priorBpm?: number;
  /** Width of the prior in octaves. */
  priorOctaves?: number;
}

export interface TempoEstimate {
  bpm: number;
  /**
   * 0-1: pulse clarity (1 minus the mean of the max-normalised tempogram over 55-215 BPM: a single
   * sharp periodicity scores near 1, noise's flat tempogram near 0.3) times a metrical-level
   * margin (0.5 when another level (T/2, 2T/3, 3T/2, 2T) scores as high as the winner, or when
   * the octave rule overruled the salience; 1 when no other level scores at all).
   */
  confidence: number;
  candidates: { bpm: number; score: number }[];
}

const DEFAULTS: Required<TempoOptions> = { minBpm: 55, maxBpm: 215, priorBpm: 120, priorOctaves: 1 };

/**
 * A metrical level's off-beats count as beats when their body-band (kick/snare) periodicity is at
 * least OFFBEAT_AS_BEAT of the on-beats'; they are mere subdivisions below OFFBEAT_AS_SUBDIVISION.
 * The gap between the two is hysteresis: in between, the prior's choice stands.
 */
const OFFBEAT_AS_BEAT = { acf: 0.6, phase: 0.55 };
const OFFBEAT_AS_SUBDIVISION = { acf: 0.5, phase: 0.35 };

export interface OnsetEnvelopes {
  /** Full-band onset strength. */
  envelope: Float32Array;
  /** Onset strength below ~1.5 kHz (kick, snare body, bass), for telling beats from subdivisions. */
  body?: Float32Array;
  /**
   * Onset-weighted spectral flatness (OnsetEnvelope.onsetFlatness). The body-band rules read kicks
   * and snares; without drums (flatness below PERCUSSIVE_FLATNESS) the body band is bass and
   * chords, whose rhythm says little about which level is the beat, and the prior decides alone.
   */
  onsetFlatness?: number;
}

/**
 * Drum-driven music measures 0.43-0.72 (synthetic grooves 0.57-0.70, chiptune and game music with
 * drum samples 0.43-0.72, 126bpm.mp3 0.57), orchestral and solo pieces 0.03-0.36.
 */
export const PERCUSSIVE_FLATNESS = 0.4;

/**
 * Estimates a global tempo from an onset-strength envelope.
 *
 * 1. The envelope is high-passed (local mean removed) and half-wave rectified (Ellis 2007, "Beat
 *    tracking by dynamic programming").
 * 2. Periodicity salience from a harmonic-summed Fourier tempogram: a bank of resonators at each
 *    candidate tempo and its harmonics (Scheirer 1998's comb-filter idea, computed as in Grosche &
 *    Müller 2011), averaged over 12 s windows so a drifting live tempo still adds up.
 * 3. Salience is weighted by a log-normal prior over tempo (Ellis 2007: centred near 120 BPM,
 *    about an octave wide). Then octave errors, the typical failure of tempo estimators, are
 *    handled explicitly: the winner moves to 2T or T/2 by where kicks and snares fall
 *    (chooseMetricalLevel), and its score is compared to the levels T/2, 2T/3, 3T/2 and 2T
 *    (the reported confidence).
 * 4. The winner is refined to 0.1 BPM by a fine search of the envelope's Fourier energy at the beat
 *    frequency and its harmonics (a Fourier tempogram, Grosche & Müller 2011), which resolves
 *    tempo far below the frame rate's lag resolution.
 */
export function estimateTempo(
  onsets: OnsetEnvelopes,
  frameRate: number,
  options: TempoOptions = {},
): TempoEstimate | null {
  const opts = { ...DEFAULTS, ...options };
  const novelty = preprocess(onsets.envelope, frameRate);
  if (!novelty) return null;
  const maxLag = Math.ceil((4 * 60 * frameRate) / opts.minBpm) + 2;
  const bodyNovelty = onsets.body ? preprocess(onsets.body, frameRate) : null;
  const bodyAcf = bodyNovelty ? autocorrelation(removeMean(bodyNovelty), maxLag) : null;

  const prior = (bpm: number) => Math.exp(-0.5 * (Math.log2(bpm / opts.priorBpm) / opts.priorOctaves) ** 2);
  const grid: number[] = [];
  for (let bpm = opts.minBpm; bpm <= opts.maxBpm; bpm += 0.5) grid.push(bpm);
  const tempogram = tempogramSalience(novelty, frameRate, grid);
  const salience = (bpm: number) =>
    tempogram[Math.min(grid.length - 1, Math.max(0, Math.round((bpm - opts.minBpm) / 0.5)))]!;
  const score = (bpm: number) => salience(bpm) * prior(bpm);

  const candidates: { bpm: number; score: number }[] = [];
  let best = { bpm: 0, score: -Infinity };
  for (const bpm of grid) {
    const s = score(bpm);
    candidates.push({ bpm, score: s });
    if (s > best.score) best = { bpm, score: s };
  }
  if (!(best.score > 0)) return null;
  const percussive = (onsets.onsetFlatness ?? 1) >= PERCUSSIVE_FLATNESS;
  if (bodyAcf && bodyNovelty && percussive) {
    const level = chooseMetricalLevel(bodyAcf, bodyNovelty, frameRate, best.bpm, opts);
    if (level !== best.bpm) best = { bpm: level, score: localMax(score, level) };
  }

  // Explicit octave check: the best score found at another metrical level of the winner.
  let rival = 0;
  for (const ratio of [0.5, 2 / 3, 1.5, 2]) {
    const b = best.bpm * ratio;
    if (b < opts.minBpm || b > opts.maxBpm) continue;
    rival = Math.max(rival, localMax(score, b));
  }
  const bpm = refine(novelty, frameRate, best.bpm);
  let mean = 0;
  for (const v of tempogram) mean += v;
  const clarity = Math.max(0, 1 - mean / tempogram.length);
  const margin = rival > 0 ? Math.max(0, 1 - rival / best.score) : 1;
  return { bpm: Math.round(bpm * 10) / 10, confidence: clarity * (0.5 + 0.5 * margin), candidates };
}

/**
 * Moves between the winner's double and half by where the kicks and snares fall: the beat is the
 * level whose off-beats are mere subdivisions (hi-hats), while a level whose off-beats carry
 * kicks or snares as strongly as its beats is too slow (the drum & bass or punk "half time" trap);
 * the prior alone cannot tell 87 from 174 BPM, both being equally far from 120.
 */
function chooseMetricalLevel(
  bodyAcf: Float32Array,
  body: Float32Array,
  frameRate: number,
  bpm: number,
  opts: Required<TempoOptions>,
): number {
  // `parts` = 2: the off-beat is halfway; 3: the two off-beats of a triple grouping (a waltz's bar
  // of three beats, or a compound beat of three tatums).
  const acfRatio = (b: number, parts: number) => {
    const period = (60 * frameRate) / b;
    const on = peakNear(bodyAcf, period);
    return on > 0 ? Math.max(0, peakNear(bodyAcf, period / parts)) / on : 1;
  };
  const phase = (b: number, parts: number) => phaseRatio(body, (60 * frameRate) / b, parts);
  // Both views must agree: the lag view survives tempo drift, the phase view tells which off-beats
  // are filled (a dembow's syncopated snares fill lags but not the off-beat positions).
  const offbeatsAreBeats = (b: number, parts: number) =>
    acfRatio(b, parts) >= OFFBEAT_AS_BEAT.acf && phase(b, parts) >= OFFBEAT_AS_BEAT.phase;
  const offbeatsAreSubdivisions = (b: number, parts: number) =>
    acfRatio(b, parts) < OFFBEAT_AS_SUBDIVISION.acf && phase(b, parts) < OFFBEAT_AS_SUBDIVISION.phase;
  let b = bpm;
  while (2 * b <= opts.maxBpm && offbeatsAreBeats(b, 2)) b *= 2;
  while (b / 2 >= opts.minBpm && offbeatsAreSubdivisions(b / 2, 2)) b /= 2;
  if (b !== bpm) return b;
  // Same rule for the triple levels the prior can land on: a fast waltz's bar (kicks on 1, the
  // snare or chord on 2 and 3: those are beats) or a 12/8's tatum (only hi-hats between the
  // kicks and snares: those are subdivisions).
  if (3 * b <= opts.maxBpm && offbeatsAreBeats(b, 3)) return 3 * b;
  if (b / 3 >= opts.minBpm && offbeatsAreSubdivisions(b / 3, 3)) return b / 3;
  return b;
}

/**
 * Mean body-band onset strength on the off-beats (the `parts - 1` points evenly between beats) over
 * that on the beats of a level with period `period` frames, the beat phase found anew in every
 * 8-beat window so a drifting tempo keeps it.
 */
function phaseRatio(body: Float32Array, period: number, parts = 2): number {
  const beats = 8;
  const span = beats * period;
  let on = 0;
  let off = 0;
  const at = (x: number) => {
    const i = Math.round(x);
    return Math.max(body[i - 1] ?? 0, body[i] ?? 0, body[i + 1] ?? 0);
  };
  for (let start = 0; start + span + period < body.length; start += span / 2) {
    let bestOn = -1;
    let bestPhase = 0;
    for (let phase = 0; phase < period; phase += 1) {
      let sum = 0;
      for (let k = 0; k < beats; k++) sum += at(start + phase + k * period);
      if (sum > bestOn) {
        bestOn = sum;
        bestPhase = phase;
      }
    }
    let sumOff = 0;
    for (let k = 0; k < beats; k++)
      for (let j = 1; j < parts; j++) sumOff += at(start + bestPhase + (k + j / parts) * period) / (parts - 1);
    on += bestOn;
    off += sumOff;
  }
  return on > 0 ? off / on : 1;
}

function peakNear(acf: Float32Array, lag: number): number {
  const tol = Math.max(1, 0.02 * lag);
  let peak = -Infinity;
  for (let x = lag - tol; x <= lag + tol; x += 0.25) peak = Math.max(peak, sampleAt(acf, x));
  return peak;
}

function removeMean(x: Float32Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < x.length; i++) mean += x[i]!;
  mean /= x.length || 1;
  return x.map((v) => v - mean);
}

function preprocess(envelope: Float32Array, frameRate: number): Float32Array | null {
  const n = envelope.length;
  if (n < frameRate * 4) return null;
  // Remove a ~1 s moving average: loudness changes are not rhythm.
  const half = Math.round(frameRate / 2);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + envelope[i]!;
  const out = new Float32Array(n);
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i + half + 1);
    const v = envelope[i]! - (prefix[b]! - prefix[a]!) / (b - a);
    out[i] = Math.max(v, 0);
    sumSq += out[i]! * out[i]!;
  }
  if (sumSq <= 1e-12) return null;
  const norm = Math.sqrt(sumSq / n);
  for (let i = 0; i < n; i++) out[i]! /= norm;
  return out;
}

function localMax(score: (bpm: number) => number, bpm: number): number {
  let m = 0;
  for (let b = bpm * 0.98; b <= bpm * 1.02; b += 0.5) m = Math.max(m, score(b));
  return m;
}

/** Tempogram window: long enough to resolve harmonics, short enough to follow a drifting tempo. */
const TEMPOGRAM_SECONDS = 12;

/**
 * Harmonic-summed Fourier tempogram (Grosche & Müller 2011; harmonic summation after Klapuri et
 * al. 2006): per 12 s Hann window, the magnitude of the envelope's DFT at the beat frequency and its
 * first three harmonics, averaged over windows. Normalised to a maximum of 1.
 */
function tempogramSalience(x: Float32Array, frameRate: number, grid: number[]): Float64Array {
  const win = Math.min(x.length, Math.round(TEMPOGRAM_SECONDS * frameRate));
  const hop = Math.max(1, Math.floor(win / 2));
  const w = new Float64Array(win);
  for (let i = 0; i < win; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / win);
  const seg = new Float64Array(win);
  const out = new Float64Array(grid.length);
  for (let start = 0; start + win <= x.length; start += hop) {
    let mean = 0;
    for (let i = 0; i < win; i++) mean += x[start + i]!;
    mean /= win;
    for (let i = 0; i < win; i++) seg[i] = (x[start + i]! - mean) * w[i]!;
    for (let g = 0; g < grid.length; g++) {
      let sum = 0;
      for (let h = 1; h <= 4; h++) sum += dftMagnitude(seg, (2 * Math.PI * h * grid[g]!) / 60 / frameRate);
      out[g]! += sum;
    }
  }
  let max = 0;
  for (const v of out) max = Math.max(max, v);
  if (max > 0) for (let g = 0; g < out.length; g++) out[g]! /= max;
  return out;
}

function dftMagnitude(seg: Float64Array, omega: number): number {
  const cw = Math.cos(omega);
  const sw = Math.sin(omega);
  let c = 1;
  let s = 0;
  let re = 0;
  let im = 0;
  for (let i = 0; i < seg.length; i++) {
    re += seg[i]! * c;
    im -= seg[i]! * s;
    const nc = c * cw - s * sw;
    s = s * cw + c * sw;
    c = nc;
  }
  return Math.hypot(re, im);
}

/** Fourier-tempogram energy at the beat frequency and three harmonics, over the whole envelope. */
function combEnergy(x: Float32Array, frameRate: number, bpm: number): number {
  let total = 0;
  for (let h = 1; h <= 4; h++) {
    const w = (2 * Math.PI * h * bpm) / 60 / frameRate;
    // Rotating phasor instead of a sin/cos per sample; renormalised to curb drift.
    const cw = Math.cos(w);
    const sw = Math.sin(w);
    let c = 1;
    let s = 0;
    let re = 0;
    let im = 0;
    for (let i = 0; i < x.length; i++) {
      re += x[i]! * c;
      im -= x[i]! * s;
      const nc = c * cw - s * sw;
      s = s * cw + c * sw;
      c = nc;
      if ((i & 1023) === 1023) {
        const r = Math.hypot(c, s);
        c /= r;
        s /= r;
      }
    }
    total += (re * re + im * im) / h;
  }
  return total;
}

function refine(x: Float32Array, frameRate: number, bpm: number): number {
  let best = bpm;
  let bestE = -Infinity;
  for (let b = bpm * 0.985; b <= bpm * 1.015; b += 0.05) {
    const e = combEnergy(x, frameRate, b);
    if (e > bestE) {
      bestE = e;
      best = b;
    }
  }
  return best;
}
