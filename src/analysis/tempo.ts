import { autocorrelation } from './autocorrelation.ts';
import { chooseMetricalLevel } from './metrical-level.ts';
import { refine, tempogramSalience } from './tempogram.ts';

export interface TempoOptions {
  minBpm?: number;
  maxBpm?: number;
  /** Centre of the log-normal tempo prior (BPM). */
  priorBpm?: number;
  /** Width of the prior in octaves. */
  priorOctaves?: number;
  /**
   * The body-band rules (chooseMetricalLevel) may move the winner to another level only where that
   * level scores at least this fraction of the winner's score: a level the tempogram and the prior
   * both rate far lower is not the beat, however the drums fall. 0 lets the drums decide alone.
   */
  levelMoveMinScore?: number;
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

/**
 * The prior (110 BPM, 0.9 octaves) and levelMoveMinScore (0.6) were chosen together on the three
 * development sets (rendered pieces, Debian game modules, and the synthetic grooves the body rules
 * were built on), never on the real-music test set: the best sum of hits averaged over each
 * setting's neighbours in the grid, since single settings differ by a clip or two
 * (docs/analysis.md, "Tempo: the prior and when the drums may overrule it").
 */
const DEFAULTS: Required<TempoOptions> = {
  minBpm: 55,
  maxBpm: 215,
  priorBpm: 110,
  priorOctaves: 0.9,
  levelMoveMinScore: 0.6,
};

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
 *    about an octave wide; here 110 BPM and 0.9 octaves). Then octave errors, the typical failure
 *    of tempo estimators, are handled explicitly: the winner moves to 2T or T/2 by where kicks and
 *    snares fall (chooseMetricalLevel), unless that level scores below 0.6 of the winner, and its
 *    score is compared to the levels T/2, 2T/3, 3T/2 and 2T (the reported confidence).
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
    const levelScore = localMax(score, level);
    if (level !== best.bpm && levelScore >= opts.levelMoveMinScore * best.score)
      best = { bpm: level, score: levelScore };
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

function removeMean(x: Float32Array): Float32Array {
  let mean = 0;
  for (let i = 0; i < x.length; i++) mean += x[i]!;
  mean /= x.length || 1;
  return x.map((v) => v - mean);
}

/**
 * The envelope's novelty: a ~1 s moving average removed (loudness changes are not rhythm), half-wave
 * rectified, scaled to unit RMS; null below 4 s or without onsets. The beats read it too (beats.ts).
 */
export function preprocess(envelope: Float32Array, frameRate: number): Float32Array | null {
  const n = envelope.length;
  if (n < frameRate * 4) return null;
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
