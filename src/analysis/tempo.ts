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
  /** Ratio of the winning score to the best score at a different metrical level (>1 is confident). */
  confidence: number;
  candidates: { bpm: number; score: number }[];
}

const DEFAULTS: Required<TempoOptions> = { minBpm: 55, maxBpm: 215, priorBpm: 120, priorOctaves: 1 };

/**
 * Estimates a global tempo from an onset-strength envelope.
 *
 * 1. The envelope is high-passed (local mean removed) and half-wave rectified (Ellis 2007, "Beat
 *    tracking by dynamic programming").
 * 2. Its autocorrelation is read at the beat period and its multiples, so a level is salient only
 *    when the pulse keeps repeating (a comb over the ACF, in the spirit of Scheirer 1998's comb
 *    filterbank and Klapuri et al. 2006's periodicity summation).
 * 3. Salience is weighted by a log-normal prior over tempo (Ellis 2007: centred near 120 BPM,
 *    about an octave wide), then metrical levels T/2, 2T/3, 3T/2, 2T of the winner are compared
 *    explicitly, since octave errors are the typical failure of tempo estimators.
 * 4. The winner is refined to 0.1 BPM by a fine search of the envelope's Fourier energy at the beat
 *    frequency and its harmonics (a Fourier tempogram, Grosche & Müller 2011), which resolves
 *    tempo far below the frame rate's lag resolution.
 */
export function estimateTempo(envelope: Float32Array, frameRate: number, options: TempoOptions = {}): TempoEstimate | null {
  const opts = { ...DEFAULTS, ...options };
  const novelty = preprocess(envelope, frameRate);
  if (!novelty) return null;
  const maxLag = Math.ceil((4 * 60 * frameRate) / opts.minBpm) + 2;
  const acf = autocorrelation(novelty, maxLag);

  const salience = (bpm: number) => combSalience(acf, (60 * frameRate) / bpm);
  const prior = (bpm: number) => Math.exp(-0.5 * (Math.log2(bpm / opts.priorBpm) / opts.priorOctaves) ** 2);
  const score = (bpm: number) => salience(bpm) * prior(bpm);

  const candidates: { bpm: number; score: number }[] = [];
  let best = { bpm: 0, score: -Infinity };
  for (let bpm = opts.minBpm; bpm <= opts.maxBpm; bpm += 0.25) {
    const s = score(bpm);
    candidates.push({ bpm, score: s });
    if (s > best.score) best = { bpm, score: s };
  }
  if (!(best.score > 0)) return null;

  // Explicit octave check: the best score found at another metrical level of the winner.
  let rival = 0;
  for (const ratio of [0.5, 2 / 3, 1.5, 2]) {
    const b = best.bpm * ratio;
    if (b < opts.minBpm || b > opts.maxBpm) continue;
    rival = Math.max(rival, localMax(score, b));
  }
  const bpm = refine(novelty, frameRate, best.bpm);
  return { bpm: Math.round(bpm * 10) / 10, confidence: rival > 0 ? best.score / rival : Infinity, candidates };
}

function preprocess(envelope: Float32Array, frameRate: number): Float32Array | null {
  const n = envelope.length;
  if (n < frameRate * 4) return null;
  // Remove a ~1 s moving average: loudness changes are not rhythm.
  const half = Math.round(frameRate / 2);
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i] + envelope[i];
  const out = new Float32Array(n);
  let sumSq = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.max(0, i - half);
    const b = Math.min(n, i + half + 1);
    const v = envelope[i] - (prefix[b] - prefix[a]) / (b - a);
    out[i] = v > 0 ? v : 0;
    sumSq += out[i] * out[i];
  }
  if (sumSq <= 1e-12) return null;
  const norm = Math.sqrt(sumSq / n);
  for (let i = 0; i < n; i++) out[i] /= norm;
  return out;
}

/** Mean ACF peak over the first four multiples of the period; small tolerance for tempo drift. */
function combSalience(acf: Float32Array, period: number): number {
  let sum = 0;
  for (let k = 1; k <= 4; k++) {
    const centre = k * period;
    const tol = Math.max(1, 0.01 * centre);
    let peak = 0;
    for (let x = centre - tol; x <= centre + tol; x += 0.25) peak = Math.max(peak, sampleAt(acf, x));
    sum += peak;
  }
  return Math.max(0, sum / 4);
}

function localMax(score: (bpm: number) => number, bpm: number): number {
  let m = 0;
  for (let b = bpm * 0.98; b <= bpm * 1.02; b += 0.25) m = Math.max(m, score(b));
  return m;
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
      re += x[i] * c;
      im -= x[i] * s;
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
