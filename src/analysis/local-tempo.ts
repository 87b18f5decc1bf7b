// The local beat period around every frame (beats.ts): rubato and tempo changes move it away from
// the global tempo, which the beat tracker would otherwise force on the whole piece.
import { dftMagnitude } from './tempogram.ts';

export interface LocalTempoOptions {
  /** Window of the local estimate (seconds). */
  windowSeconds?: number;
  /** Median over this many windows (one a second): one odd window does not bend the beat. */
  medianWindows?: number;
  /** Width of the log-normal pull towards the global tempo (octaves): a window of fills does not jump a level. */
  pullOctaves?: number;
}

/**
 * Chosen with the tracker's tightness on the steady and rubato development sets together
 * (bench/analyze-beats.ts; docs/analysis.md, "Beats, downbeats and chords"): 4 s windows and a
 * five-window median measured no better there.
 */
export const LOCAL_TEMPO_DEFAULTS: Required<LocalTempoOptions> = {
  windowSeconds: 8,
  medianWindows: 1,
  pullOctaves: 0.12,
};

const HOP_SECONDS = 1;
/** Candidates from 0.8 to 1.25 times the global tempo in steps of 1/48 octave. */
const SPAN_STEPS = 15;
const STEPS_PER_OCTAVE = 48;

/**
 * Beat period (frames) at every frame: per window (8 s, hop 1 s), the tempo within -20 %..+25 %
 * of the global one whose Fourier tempogram magnitude, summed over four harmonics as in the
 * global estimate (tempogram.ts) and weighted by a pull towards the global tempo, is highest;
 * median-filtered over `medianWindows` windows and interpolated between window centres.
 */
export function localPeriods(
  novelty: Float32Array,
  frameRate: number,
  bpm: number,
  options: LocalTempoOptions = {},
): Float64Array {
  const { windowSeconds, medianWindows, pullOctaves } = { ...LOCAL_TEMPO_DEFAULTS, ...options };
  const n = novelty.length;
  const out = new Float64Array(n).fill((60 * frameRate) / bpm);
  const win = Math.round(windowSeconds * frameRate);
  if (n < win * 1.5) return out;
  const hop = Math.round(HOP_SECONDS * frameRate);
  const w = new Float64Array(win);
  for (let i = 0; i < win; i++) w[i] = 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / win);
  const seg = new Float64Array(win);
  const centres: number[] = [];
  const tempi: number[] = [];
  for (let start = 0; start + win <= n; start += hop) {
    let mean = 0;
    for (let i = 0; i < win; i++) mean += novelty[start + i]!;
    mean /= win;
    for (let i = 0; i < win; i++) seg[i] = (novelty[start + i]! - mean) * w[i]!;
    let best = bpm;
    let bestScore = -Infinity;
    for (let k = -SPAN_STEPS; k <= SPAN_STEPS; k++) {
      const b = bpm * 2 ** (k / STEPS_PER_OCTAVE);
      let s = 0;
      for (let h = 1; h <= 4; h++) s += dftMagnitude(seg, (2 * Math.PI * h * b) / 60 / frameRate);
      s *= Math.exp(-0.5 * (k / STEPS_PER_OCTAVE / pullOctaves) ** 2);
      if (s > bestScore) {
        bestScore = s;
        best = b;
      }
    }
    centres.push(start + win / 2);
    tempi.push(best);
  }
  const half = medianWindows >> 1;
  const smoothed = tempi.map((_, i) => median(tempi.slice(Math.max(0, i - half), i + half + 1)));
  for (let t = 0; t < n; t++) {
    let j = 0;
    while (j + 1 < centres.length && centres[j + 1]! <= t) j++;
    const c0 = centres[j]!;
    const c1 = centres[j + 1];
    let b = smoothed[j]!;
    if (c1 !== undefined && t > c0) b += ((smoothed[j + 1]! - b) * (t - c0)) / (c1 - c0);
    out[t] = (60 * frameRate) / b;
  }
  return out;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
