// Beat tracking by dynamic programming (Ellis 2007), over the onset envelope the tempo was found on,
// with a local tempo so that rubato and tempo changes are followed.
import { type LocalTempoOptions, localPeriods } from './local-tempo.ts';

export interface BeatOptions extends LocalTempoOptions {
  /**
   * How strongly a beat interval is held to the local period: the DP's transition cost is
   * tightness × log(interval / period)² (Ellis 2007; librosa's default, 100, ships: 300 measured
   * better on steady pieces and worse under rubato, docs/analysis.md).
   */
  tightness?: number;
}

export interface BeatTrack {
  /** Beat times in envelope frames (fractional: refined to the onset peak). */
  frames: number[];
  /**
   * 0-1: mean onset strength half-way between beats over that at the beats, taken from 1 (beats on
   * clear onsets with quiet between: near 1; a flat envelope: near 0).
   */
  confidence: number;
}

const DEFAULTS: Required<Pick<BeatOptions, 'tightness'>> = { tightness: 100 };

/**
 * Beats of an onset envelope at a known tempo. The novelty is the envelope high-passed and
 * normalised (as the tempo's); each frame's score is its novelty smoothed over a 32nd of a beat;
 * the best chain of beats maximises the scores at the beats less tightness × log(gap / period)²
 * per gap (Ellis 2007, "Beat tracking by dynamic programming"), the period taken from the local
 * tempo around each frame (local-tempo.ts) rather than one global value. The chain ends at the
 * best cumulative score of the last period (lastBeat); the local tempo reads `tempoNovelty` (the
 * onset novelty where the score is the beat model's activation: see beats-and-chords.ts); weak beats at either end (onsets below half
 * the beats' RMS: silence, a fade) are dropped, as librosa does.
 */
export function trackBeats(
  novelty: Float32Array,
  frameRate: number,
  bpm: number,
  options: BeatOptions = {},
  tempoNovelty: Float32Array = novelty,
): BeatTrack | null {
  const { tightness, ...localTempo } = { ...DEFAULTS, ...options };
  const n = novelty.length;
  const period = (60 * frameRate) / bpm;
  if (n < 2 * period) return null;
  const local = smooth(novelty, period / 32);
  const periods = localPeriods(tempoNovelty, frameRate, bpm, localTempo);
  const cum = new Float64Array(n);
  const back = new Int32Array(n).fill(-1);
  for (let t = 0; t < n; t++) {
    const p = periods[t]!;
    const from = Math.max(0, Math.floor(t - 2 * p));
    const to = Math.floor(t - p / 2);
    let best = -Infinity;
    let arg = -1;
    for (let tau = from; tau <= to; tau++) {
      const r = Math.log((t - tau) / p);
      const s = cum[tau]! - tightness * r * r;
      if (s > best) {
        best = s;
        arg = tau;
      }
    }
    cum[t] = local[t]! + (arg >= 0 && best > 0 ? best : 0);
    back[t] = arg >= 0 && best > 0 ? arg : -1;
  }
  const beats: number[] = [];
  for (let t = lastBeat(cum, periods[n - 1]!); t >= 0; t = back[t]!) beats.push(t);
  beats.reverse();
  const trimmed = trim(beats, local);
  if (trimmed.length < 2) return null;
  return { frames: trimmed.map((b) => refinePeak(local, b)), confidence: beatClarity(local, trimmed) };
}

/**
 * Beats read from a score other than the onsets (the beat model's activation) moved to the onsets'
 * peak nearby: the model places a beat where it expects it, about a frame (23 ms) before the
 * attack on real recordings (it learnt the score's grid, which rendered instruments sound 5-40 ms
 * after). Within SNAP_FRAMES (at most an eighth of a beat); where no onset peaks there, the beat stays.
 */
export function snapToOnsets(frames: number[], onsetNovelty: Float32Array, frameRate: number, bpm: number): number[] {
  const period = (60 * frameRate) / bpm;
  const onsets = smooth(onsetNovelty, period / 32);
  const reach = Math.max(1, Math.min(SNAP_FRAMES, Math.floor(period / 8)));
  return frames.map((f) => {
    const t = Math.round(f);
    let best = t;
    for (let k = Math.max(0, t - reach); k <= Math.min(onsets.length - 1, t + reach); k++)
      if (onsets[k]! > onsets[best]!) best = k;
    const peak = best !== t && onsets[best]! >= (onsets[best - 1] ?? 0) && onsets[best]! >= (onsets[best + 1] ?? 0);
    return peak ? refinePeak(onsets, best) : f;
  });
}

/** How far (onset frames, about 23 ms each) snapToOnsets moves a beat. */
const SNAP_FRAMES = 2;

/**
 * The chain's end: the best cumulative score within the last beat period. Every later frame is
 * an earlier beat's chain plus a penalised gap, so the true last beat outscores them, where the
 * last local maximum (Ellis's choice) can be an off-beat frame in the fade that bends the last beats.
 */
function lastBeat(cum: Float64Array, period: number): number {
  let best = cum.length - 1;
  for (let t = Math.max(0, Math.floor(cum.length - period)); t < cum.length; t++) if (cum[t]! > cum[best]!) best = t;
  return best;
}

/** Drops beats at either end whose onset strength is below half the RMS over the beats. */
function trim(beats: number[], local: Float32Array): number[] {
  let sq = 0;
  for (const b of beats) sq += local[b]! ** 2;
  const threshold = 0.5 * Math.sqrt(sq / Math.max(1, beats.length));
  let start = 0;
  let end = beats.length;
  while (start < end && local[beats[start]!]! < threshold) start++;
  while (end > start && local[beats[end - 1]!]! < threshold) end--;
  return beats.slice(start, end);
}

/** Sub-frame position of the score's peak at frame `t` (parabolic interpolation). */
function refinePeak(x: Float32Array, t: number): number {
  const a = x[t - 1] ?? 0;
  const b = x[t]!;
  const c = x[t + 1] ?? 0;
  const denom = a - 2 * b + c;
  if (!(denom < 0) || b < a || b < c) return t;
  return t + (0.5 * (a - c)) / denom;
}

function beatClarity(local: Float32Array, beats: number[]): number {
  let on = 0;
  let off = 0;
  for (let i = 0; i + 1 < beats.length; i++) {
    on += local[beats[i]!]!;
    off += local[Math.round((beats[i]! + beats[i + 1]!) / 2)]!;
  }
  return on > 0 ? Math.max(0, Math.min(1, 1 - off / on)) : 0;
}

/** Gaussian smoothing with standard deviation `sigma` frames (at least half a frame). */
function smooth(x: Float32Array, sigma: number): Float32Array {
  const s = Math.max(0.5, sigma);
  const radius = Math.ceil(3 * s);
  const kernel = new Float64Array(2 * radius + 1);
  for (let k = -radius; k <= radius; k++) kernel[k + radius] = Math.exp(-0.5 * (k / s) ** 2);
  const out = new Float32Array(x.length);
  for (let i = 0; i < x.length; i++) {
    let sum = 0;
    for (let k = -radius; k <= radius; k++) {
      const j = i + k;
      if (j >= 0 && j < x.length) sum += x[j]! * kernel[k + radius]!;
    }
    out[i] = sum;
  }
  return out;
}
