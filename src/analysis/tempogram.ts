// The Fourier tempogram behind estimateTempo (tempo.ts): salience per candidate tempo, and the fine search
// that refines the winner below the frame rate's lag resolution.
/** Tempogram window: long enough to resolve harmonics, short enough to follow a drifting tempo. */
const TEMPOGRAM_SECONDS = 12;

/**
 * Harmonic-summed Fourier tempogram (Grosche & Müller 2011; harmonic summation after Klapuri et
 * al. 2006): per 12 s Hann window, the magnitude of the envelope's DFT at the beat frequency and its
 * first three harmonics, averaged over windows. Normalised to a maximum of 1.
 */
export function tempogramSalience(x: Float32Array, frameRate: number, grid: number[]): Float64Array {
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

/** |DFT| of `seg` at angular frequency `omega` (radians per sample), by a rotating phasor. */
export function dftMagnitude(seg: Float64Array, omega: number): number {
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

/** The tempo within 1.5 % of `bpm` whose comb energy is highest, to 0.05 BPM (step 4 of estimateTempo). */
export function refine(x: Float32Array, frameRate: number, bpm: number): number {
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
