// Chords (major, minor, none) from the chroma frames: template matching smoothed by a Viterbi pass.
import { chordName } from './key-names.ts';

export interface ChordOptions {
  /** Score of "no chord" per frame, in correlation units: a frame whose best chord scores less reads N. */
  noChord?: number;
  /** Cost of a chord change, in correlation units: short flickers cost more than they gain. */
  changeCost?: number;
  /** Weight of the bass's agreement with a chord's root (0 = the bass is not read). */
  bassWeight?: number;
}

/** One chord segment, in chroma frames [start, end). `root` is a pitch class (C = 0), null for N. */
export interface ChordSegment {
  start: number;
  end: number;
  chord: string;
  root: number | null;
  minor: boolean;
  /** 0-1: the chord's share of the frames' softmax over every chord and N (not a calibrated probability). */
  confidence: number;
}

/** Chosen on the chord development set (bench/analyze-beats.ts --chords, docs/analysis.md). */
export const CHORD_DEFAULTS: Required<ChordOptions> = { noChord: 0.3, changeCost: 0.5, bassWeight: 0.3 };

/** Weights of a note's first six partials in the chroma (it sums every peak up to 5 kHz). */
const PARTIAL_DECAY = 0.6;
const PARTIALS = 6;
/** Softmax sharpness of the confidence. */
const CONFIDENCE_BETA = 25;
/** 24 chords (12 major, then 12 minor) and N. */
const STATES = 25;
const N_STATE = 24;

/**
 * Chord templates (Fujishima 1999's pattern matching, with the partials of each note added as
 * Gómez 2006 does for key profiles, so that a C major triad's template also holds the B and D that
 * its notes' upper partials put in the chroma), scored by cosine similarity with each frame's
 * 12-bin chroma (both centred: a Pearson correlation, so that a flat chroma, noise or drums,
 * scores 0 with every chord and reads N). A Viterbi pass over the frames pays `changeCost` per change, so chords hold across
 * passing notes (the HMM smoothing of Sheh & Ellis 2003 with one self-transition weight).
 */
export function recogniseChords(
  chroma: Float64Array[],
  bass: Float64Array[] | null,
  options: ChordOptions = {},
): ChordSegment[] {
  const { noChord, changeCost, bassWeight } = { ...CHORD_DEFAULTS, ...options };
  const templates = chordTemplates();
  const n = chroma.length;
  if (n === 0) return [];
  const scores: Float64Array[] = [];
  for (let t = 0; t < n; t++) {
    const s = new Float64Array(STATES);
    const x = centred(chroma[t]!);
    const norm = Math.hypot(...x);
    const b = bass?.[t];
    const bassMax = b ? Math.max(...b) : 0;
    for (let c = 0; c < 24; c++) {
      if (norm === 0) continue;
      const tpl = templates[c]!;
      let dot = 0;
      for (let i = 0; i < 12; i++) dot += x[i]! * tpl[i]!;
      s[c] = dot / norm;
      if (b && bassMax > 0) s[c]! += bassWeight * (b[c % 12]! / bassMax - 0.5);
    }
    s[N_STATE] = noChord;
    scores.push(s);
  }
  const path = viterbi(scores, changeCost);
  const segments: ChordSegment[] = [];
  for (let t = 0; t < n; t++) {
    const state = path[t]!;
    const last = segments.at(-1);
    const p = softmaxShare(scores[t]!, state);
    if (last && stateOf(last) === state) {
      last.end = t + 1;
      last.confidence += p;
      continue;
    }
    const root = state === N_STATE ? null : state % 12;
    const minor = state >= 12 && state < N_STATE;
    segments.push({
      start: t,
      end: t + 1,
      chord: root === null ? 'N' : chordName(root, minor),
      root,
      minor,
      confidence: p,
    });
  }
  for (const s of segments) s.confidence /= s.end - s.start;
  return segments;
}

function stateOf(s: ChordSegment): number {
  return s.root === null ? N_STATE : s.root + (s.minor ? 12 : 0);
}

function viterbi(scores: Float64Array[], changeCost: number): Int32Array {
  const n = scores.length;
  const back = new Int32Array(n * STATES);
  let prev = Float64Array.from(scores[0]!);
  for (let t = 1; t < n; t++) {
    let bestPrev = 0;
    for (let s = 1; s < STATES; s++) if (prev[s]! > prev[bestPrev]!) bestPrev = s;
    const cur = new Float64Array(STATES);
    const e = scores[t]!;
    for (let s = 0; s < STATES; s++) {
      const stay = prev[s]!;
      const move = prev[bestPrev]! - changeCost;
      if (stay >= move) {
        cur[s] = stay + e[s]!;
        back[t * STATES + s] = s;
      } else {
        cur[s] = move + e[s]!;
        back[t * STATES + s] = bestPrev;
      }
    }
    prev = cur;
  }
  const path = new Int32Array(n);
  let s = 0;
  for (let k = 1; k < STATES; k++) if (prev[k]! > prev[s]!) s = k;
  for (let t = n - 1; t >= 0; t--) {
    path[t] = s;
    s = back[t * STATES + s]!;
  }
  return path;
}

function softmaxShare(s: Float64Array, state: number): number {
  let max = -Infinity;
  for (const v of s) max = Math.max(max, v);
  let sum = 0;
  for (const v of s) sum += Math.exp(CONFIDENCE_BETA * (v - max));
  return Math.exp(CONFIDENCE_BETA * (s[state]! - max)) / sum;
}

function centred(x: Float64Array): Float64Array {
  const mean = x.reduce((a, b) => a + b, 0) / x.length;
  return x.map((v) => v - mean);
}

/** 24 unit-length, zero-mean templates: 12 major triads from C, then 12 minor. */
export function chordTemplates(): Float64Array[] {
  const out: Float64Array[] = [];
  for (const third of [4, 3]) {
    for (let root = 0; root < 12; root++) {
      const t = new Float64Array(12);
      for (const note of [root, root + third, root + 7]) {
        for (let h = 1; h <= PARTIALS; h++) {
          const pc = (note + Math.round(12 * Math.log2(h))) % 12;
          t[pc]! += PARTIAL_DECAY ** (h - 1);
        }
      }
      const c = centred(t);
      const norm = Math.hypot(...c);
      out.push(c.map((v) => v / norm));
    }
  }
  return out;
}
