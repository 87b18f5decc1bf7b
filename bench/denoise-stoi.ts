import { RealFft } from '../src/dsp/fft.ts';

/*
 * Short-time objective intelligibility (Taal et al., "An algorithm for intelligibility prediction
 * of time-frequency weighted noisy speech", IEEE TASLP 2011), following the reference definition
 * used by pystoi: signals at 10 kHz, 256-sample Hann frames (hop 128, FFT 512), silent frames
 * (40 dB below the loudest clean frame) removed from both, 15 one-third-octave bands from 150 Hz,
 * 30-frame (384 ms) segments, the estimate normalised and clipped at beta = -15 dB SDR, then the
 * mean correlation of band envelopes. 0..1, higher = more intelligible. Inputs must be at 10 kHz.
 */

export const STOI_RATE = 10_000;
const FRAME = 256;
const HOP = 128;
const NFFT = 512;
const BANDS = 15;
const MIN_FREQ = 150;
const SEGMENT = 30;
const BETA = -15;
const DYN_RANGE = 40;
const EPS = Number.EPSILON;

const hann = Float64Array.from(
  { length: FRAME },
  (_, i) => 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 1)) / (FRAME + 1)),
);

function bandEdges(): [number, number][] {
  const bins = NFFT / 2 + 1;
  const f = Array.from({ length: bins }, (_, i) => (i * STOI_RATE) / NFFT);
  const nearest = (hz: number) => {
    let best = 0;
    for (let i = 1; i < bins; i++) if ((f[i]! - hz) ** 2 < (f[best]! - hz) ** 2) best = i;
    return best;
  };
  return Array.from({ length: BANDS }, (_, k) => [
    nearest(MIN_FREQ * 2 ** ((2 * k - 1) / 6)),
    nearest(MIN_FREQ * 2 ** ((2 * k + 1) / 6)),
  ]);
}

function removeSilentFrames(x: Float32Array, y: Float32Array): [Float64Array, Float64Array] {
  const starts: number[] = [];
  for (let i = 0; i + FRAME <= x.length; i += HOP) starts.push(i);
  const energy = starts.map((s) => {
    let e = 0;
    for (let j = 0; j < FRAME; j++) e += (hann[j]! * x[s + j]!) ** 2;
    return 20 * Math.log10(Math.sqrt(e) + EPS);
  });
  const max = Math.max(...energy);
  const kept = starts.filter((_, i) => energy[i]! > max - DYN_RANGE);
  const n = kept.length ? (kept.length - 1) * HOP + FRAME : 0;
  const xs = new Float64Array(n);
  const ys = new Float64Array(n);
  kept.forEach((s, k) => {
    for (let j = 0; j < FRAME; j++) {
      xs[k * HOP + j]! += hann[j]! * x[s + j]!;
      ys[k * HOP + j]! += hann[j]! * y[s + j]!;
    }
  });
  return [xs, ys];
}

async function bandEnvelopes(x: Float64Array, fft: RealFft, edges: [number, number][]): Promise<Float64Array[]> {
  const frame = new Float32Array(NFFT);
  const spec = new Float32Array(NFFT + 2);
  const out: Float64Array[] = [];
  for (let s = 0; s < x.length - FRAME; s += HOP) {
    frame.fill(0);
    for (let j = 0; j < FRAME; j++) frame[j] = hann[j]! * x[s + j]!;
    fft.forward(frame, spec);
    const bands = new Float64Array(BANDS);
    edges.forEach(([lo, hi], b) => {
      let e = 0;
      for (let k = lo; k < hi; k++) e += spec[2 * k]! ** 2 + spec[2 * k + 1]! ** 2;
      bands[b] = Math.sqrt(e);
    });
    out.push(bands);
  }
  return out;
}

let fftPromise: Promise<RealFft> | undefined;

/** STOI of `estimate` against `clean`, both at 10 kHz; NaN when under 30 frames of speech remain. */
export async function stoi(clean: Float32Array, estimate: Float32Array): Promise<number> {
  const n = Math.min(clean.length, estimate.length);
  const [xs, ys] = removeSilentFrames(clean.subarray(0, n), estimate.subarray(0, n));
  fftPromise ??= RealFft.create(NFFT);
  const fft = await fftPromise;
  const edges = bandEdges();
  const X = await bandEnvelopes(xs, fft, edges);
  const Y = await bandEnvelopes(ys, fft, edges);
  if (X.length < SEGMENT) return Number.NaN;
  const clip = 10 ** (-BETA / 20);
  let sum = 0;
  let count = 0;
  const xv = new Float64Array(SEGMENT);
  const yv = new Float64Array(SEGMENT);
  for (let m = SEGMENT; m <= X.length; m++) {
    for (let b = 0; b < BANDS; b++) {
      let nx = 0;
      let ny = 0;
      for (let j = 0; j < SEGMENT; j++) {
        xv[j] = X[m - SEGMENT + j]![b]!;
        yv[j] = Y[m - SEGMENT + j]![b]!;
        nx += xv[j]! ** 2;
        ny += yv[j]! ** 2;
      }
      const g = Math.sqrt(nx) / (Math.sqrt(ny) + EPS);
      let mx = 0;
      let my = 0;
      for (let j = 0; j < SEGMENT; j++) {
        yv[j] = Math.min(yv[j]! * g, xv[j]! * (1 + clip));
        mx += xv[j]!;
        my += yv[j]!;
      }
      mx /= SEGMENT;
      my /= SEGMENT;
      let dot = 0;
      let ex = 0;
      let ey = 0;
      for (let j = 0; j < SEGMENT; j++) {
        const a = xv[j]! - mx;
        const c = yv[j]! - my;
        dot += a * c;
        ex += a * a;
        ey += c * c;
      }
      sum += dot / ((Math.sqrt(ex) + EPS) * (Math.sqrt(ey) + EPS));
      count++;
    }
  }
  return sum / count;
}
