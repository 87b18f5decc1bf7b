import { bandPower } from './erb.ts';
import type { FrameBuffer } from './frame-buffer.ts';

/*
 * DeepFilterNet's input features (libDF `feat_erb` and `feat_cplx`, Schröter et al. 2022/2023):
 * - ERB features: band power in dB, minus an exponential running mean (initialised as a ramp from
 *   -60 dB to -90 dB across the bands), divided by 40;
 * - complex features: the lowest nbDf bins divided by the square root of an exponential running
 *   mean of their magnitude (initialised as a ramp from 1e-3 to 1e-4).
 * Both states run continuously over the whole stream, so they live here and not in the network.
 * `alphaUp` (default `alpha`) is the smoothing used while a state rises: a comparison option only.
 */

const MEAN_NORM_INIT: [number, number] = [-60, -90];
const UNIT_NORM_INIT: [number, number] = [0.001, 0.0001];

function ramp(n: number, [from, to]: [number, number]): Float32Array {
  const out = new Float32Array(n);
  const step = n > 1 ? (to - from) / (n - 1) : 0;
  for (let i = 0; i < n; i++) out[i] = from + i * step;
  return out;
}

export class FeatureExtractor {
  private readonly meanState: Float32Array;
  private readonly unitState: Float32Array;
  private readonly power: Float32Array;

  constructor(
    private readonly widths: Int32Array,
    private readonly nbDf: number,
    private readonly alpha: number,
    private readonly alphaUp = alpha,
  ) {
    this.meanState = ramp(widths.length, MEAN_NORM_INIT);
    this.unitState = ramp(nbDf, UNIT_NORM_INIT);
    this.power = new Float32Array(widths.length);
  }

  /**
   * Computes the features of one spectrum (interleaved complex) into `erbOut` (nbErb values) and
   * `cplxOut` (planar: nbDf real parts, then nbDf imaginary parts, the encoder's [2, F] layout).
   */
  extract(spec: Float32Array, erbOut: Float32Array, cplxOut: Float32Array): void {
    const { alpha, alphaUp, meanState, unitState, power, nbDf } = this;
    bandPower(spec, this.widths, power);
    for (let b = 0; b < power.length; b++) {
      const db = 10 * Math.log10(power[b]! + 1e-10);
      const a = db > meanState[b]! ? alphaUp : alpha;
      meanState[b] = db * (1 - a) + meanState[b]! * a;
      erbOut[b] = (db - meanState[b]!) / 40;
    }
    for (let f = 0; f < nbDf; f++) {
      const re = spec[2 * f]!;
      const im = spec[2 * f + 1]!;
      const mag = Math.hypot(re, im);
      const a = mag > unitState[f]! ? alphaUp : alpha;
      unitState[f] = mag * (1 - a) + unitState[f]! * a;
      const scale = 1 / Math.sqrt(unitState[f]!);
      cplxOut[f] = re * scale;
      cplxOut[nbDf + f] = im * scale;
    }
  }
}

/**
 * Lays out a window of `frames` feature rows from frame `from` on as the encoder reads them:
 * `featErb` [frames, nbErb], `featSpec` [2, frames, nbDf] (real plane, then imaginary plane); rows
 * past the last known frame are zeros. (The caller passes `from` shifted by conv_lookahead.)
 */
export function gatherWindow(
  erb: FrameBuffer,
  cplx: FrameBuffer,
  from: number,
  frames: number,
  featErb: Float32Array,
  featSpec: Float32Array,
): void {
  const nbErb = erb.width;
  const nbDf = cplx.width / 2;
  for (let j = 0; j < frames; j++) {
    const e = erb.row(from + j);
    const c = cplx.row(from + j);
    if (e && c) {
      featErb.set(e, j * nbErb);
      featSpec.set(c.subarray(0, nbDf), j * nbDf);
      featSpec.set(c.subarray(nbDf), (frames + j) * nbDf);
    } else {
      featErb.fill(0, j * nbErb, (j + 1) * nbErb);
      featSpec.fill(0, j * nbDf, (j + 1) * nbDf);
      featSpec.fill(0, (frames + j) * nbDf, (frames + j + 1) * nbDf);
    }
  }
}
