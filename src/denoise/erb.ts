/*
 * The rectangular ERB filterbank of libDF (`erb_fb`): nbBands bands equally spaced on the ERB
 * scale of Glasberg & Moore (freq2erb = 9.265 ln(1 + f / (24.7 * 9.265))), each at least
 * minNbFreqs FFT bins wide, together covering all fftSize/2+1 bins.
 */

const freqToErb = (hz: number): number => 9.265 * Math.log1p(hz / (24.7 * 9.265));
const erbToFreq = (erb: number): number => 24.7 * 9.265 * (Math.exp(erb / 9.265) - 1);

/** Widths (in FFT bins) of the ERB bands, lowest band first. */
export function erbWidths(sampleRate: number, fftSize: number, nbBands: number, minNbFreqs: number): Int32Array {
  const freqWidth = sampleRate / fftSize;
  const erbLow = freqToErb(0);
  const erbHigh = freqToErb(sampleRate / 2);
  const step = (erbHigh - erbLow) / nbBands;
  const widths = new Int32Array(nbBands);
  let prevBin = 0;
  let over = 0; // bins already handed to earlier bands by the minimum-width rule
  for (let i = 1; i <= nbBands; i++) {
    const bin = Math.round(erbToFreq(erbLow + i * step) / freqWidth);
    let n = bin - prevBin - over;
    if (n < minNbFreqs) {
      over = minNbFreqs - n;
      n = minNbFreqs;
    } else {
      over = 0;
    }
    widths[i - 1] = n;
    prevBin = bin;
  }
  widths[nbBands - 1]! += 1; // the Nyquist bin
  const total = widths.reduce((a, b) => a + b, 0);
  const excess = total - (fftSize / 2 + 1);
  if (excess > 0) widths[nbBands - 1]! -= excess;
  return widths;
}

/** Mean power |X|^2 of the bins of each band (libDF `compute_band_corr` of X with itself). */
export function bandPower(spec: Float32Array, widths: Int32Array, out: Float32Array): void {
  let bin = 0;
  for (let b = 0; b < widths.length; b++) {
    const w = widths[b]!;
    let sum = 0;
    for (let j = 0; j < w; j++, bin++) {
      const re = spec[2 * bin]!;
      const im = spec[2 * bin + 1]!;
      sum += re * re + im * im;
    }
    out[b] = sum / w;
  }
}

/** Multiplies every bin of `spec` (interleaved complex) by the gain of its ERB band. */
export function applyBandGains(spec: Float32Array, gains: ArrayLike<number>, widths: Int32Array): void {
  let bin = 0;
  for (let b = 0; b < widths.length; b++) {
    const g = gains[b]!;
    for (let j = 0; j < widths[b]!; j++, bin++) {
      spec[2 * bin]! *= g;
      spec[2 * bin + 1]! *= g;
    }
  }
}
