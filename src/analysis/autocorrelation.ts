import FFT from 'fft.js';

/**
 * Autocorrelation of `x` for lags 0..maxLag through the Wiener-Khinchin theorem (|FFT|² then
 * inverse FFT, zero-padded to avoid circular wrap), normalised so lag 0 is 1 and each lag is
 * divided by its overlap length (unbiased), which keeps long lags comparable to short ones.
 */
export function autocorrelation(x: Float32Array, maxLag: number): Float32Array {
  const n = x.length;
  maxLag = Math.min(maxLag, n - 1);
  let size = 4;
  while (size < 2 * n) size *= 2;
  const fft = new FFT(size);
  const input = new Float64Array(size);
  input.set(x);
  const spec = new Float64Array(2 * size);
  fft.realTransform(spec, input);
  fft.completeSpectrum(spec);
  for (let k = 0; k < size; k++) {
    const re = spec[2 * k]!;
    const im = spec[2 * k + 1]!;
    spec[2 * k] = re * re + im * im;
    spec[2 * k + 1] = 0;
  }
  const back = new Float64Array(2 * size);
  fft.inverseTransform(back, spec);
  const out = new Float32Array(maxLag + 1);
  const zero = back[0]! / n || 1;
  for (let lag = 0; lag <= maxLag; lag++) out[lag] = back[2 * lag]! / (n - lag) / zero;
  return out;
}

/** Linear interpolation of `a` at a fractional index (0 outside the array). */
export function sampleAt(a: Float32Array, x: number): number {
  const i = Math.floor(x);
  if (i < 0 || i + 1 >= a.length) return 0;
  const f = x - i;
  return a[i]! * (1 - f) + a[i + 1]! * f;
}
