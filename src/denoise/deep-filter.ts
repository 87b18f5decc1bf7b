import { applyBandGains } from './erb.ts';

/*
 * Builds one enhanced spectrum from the network outputs, as DfNet.forward does in DeepFilterNet3
 * (df/deepfilternet3.py, df/multiframe.py `DF`; Schröter et al., ICASSP 2022, eq. 2):
 * - bins >= nbDf: the noisy bin times the gain of its ERB band (the "stage 1" mask);
 * - bins <  nbDf: the deep filter, a complex FIR over time per bin,
 *     Y(t, f) = sum_n C(t, f, n) * X(t - (order - 1 - lookahead) + n, f),
 *   over frames t-2 .. t+2 for order 5, look-ahead 2, applied to the noisy spectrum.
 */

export interface DeepFilterShape {
  nbDf: number;
  dfOrder: number;
  dfLookahead: number;
  freqBins: number;
}

/**
 * Writes the enhanced spectrum of frame t into `out` (interleaved complex).
 * `noisy(k)` returns the noisy spectrum of frame k, or undefined outside the signal (zeros).
 * `coefs` is this frame's [nbDf, dfOrder, 2] block, `gains` its ERB mask.
 */
export function enhanceFrame(
  shape: DeepFilterShape,
  t: number,
  noisy: (k: number) => Float32Array | undefined,
  gains: Float32Array,
  coefs: Float32Array,
  widths: Int32Array,
  out: Float32Array,
): void {
  const { nbDf, dfOrder, dfLookahead } = shape;
  const current = noisy(t);
  if (current) out.set(current);
  else out.fill(0);
  applyBandGains(out, gains, widths);
  out.fill(0, 0, 2 * nbDf);
  const first = t - (dfOrder - 1 - dfLookahead);
  for (let n = 0; n < dfOrder; n++) {
    const x = noisy(first + n);
    if (!x) continue;
    for (let f = 0; f < nbDf; f++) {
      const c = (f * dfOrder + n) * 2;
      const cr = coefs[c]!;
      const ci = coefs[c + 1]!;
      const xr = x[2 * f]!;
      const xi = x[2 * f + 1]!;
      out[2 * f]! += xr * cr - xi * ci;
      out[2 * f + 1]! += xr * ci + xi * cr;
    }
  }
}
