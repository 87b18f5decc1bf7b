import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { bandPower, erbWidths } from '../src/denoise/erb.ts';
import { FeatureExtractor } from '../src/denoise/features.ts';
import { RealFft } from '../src/dsp/fft.ts';
import { normAlpha, parseDfConfig } from '../src/denoise/model-files.ts';
import { siSdr } from '../support/si-sdr.ts';
import { StftAnalyzer, StftSynthesizer, vorbisWindow, windowNorm } from '../src/denoise/stft.ts';
import { sharedPath } from '../support/shared.ts';

const params = parseDfConfig(readFileSync(sharedPath('models', 'dfn3', 'config.ini'), 'utf8'));

function noise(n: number, seed = 1): Float32Array {
  const x = new Float32Array(n);
  let s = seed;
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) % 2147483648;
    x[i] = s / 2147483648 - 0.5;
  }
  return x;
}

describe('DeepFilterNet3 DSP', () => {
  it('reads the STFT and filter parameters from config.ini', () => {
    expect(params).toMatchObject({
      sampleRate: 48000,
      fftSize: 960,
      hopSize: 480,
      nbErb: 32,
      nbDf: 96,
      dfOrder: 5,
      dfLookahead: 2,
      convLookahead: 2,
    });
    expect(normAlpha(params)).toBeCloseTo(0.99, 6);
  });

  it('real FFT matches a direct DFT on a 960-point frame', async () => {
    const fft = await RealFft.create(960);
    const x = noise(960, 7);
    const out = new Float32Array(962);
    fft.forward(x, out);
    for (const k of [0, 1, 37, 480]) {
      let re = 0;
      let im = 0;
      for (let n = 0; n < 960; n++) {
        re += x[n]! * Math.cos((2 * Math.PI * k * n) / 960);
        im -= x[n]! * Math.sin((2 * Math.PI * k * n) / 960);
      }
      expect(out[2 * k]).toBeCloseTo(re, 3);
      expect(out[2 * k + 1]).toBeCloseTo(im, 3);
    }
    const back = new Float32Array(960);
    fft.inverse(out, back);
    for (let n = 0; n < 960; n += 97) expect(back[n]! / 960).toBeCloseTo(x[n]!, 5);
    fft.dispose();
  });

  it('analysis + synthesis without the network reconstructs the input, delayed by fft - hop', async () => {
    const fft = await RealFft.create(params.fftSize);
    const window = vorbisWindow(params.fftSize);
    // The Vorbis window is power complementary at 50 % overlap, so libDF's norm is 1/N.
    expect(windowNorm(window, params.hopSize)).toBeCloseTo(1 / params.fftSize, 9);
    const analyzer = new StftAnalyzer(fft, window, params.hopSize);
    const synthesizer = new StftSynthesizer(fft, window, params.hopSize);
    const hop = params.hopSize;
    const x = noise(hop * 200, 3);
    const y = new Float32Array(x.length);
    const spec = new Float32Array(params.fftSize + 2);
    for (let t = 0; t < x.length / hop; t++) {
      analyzer.analyze(x.subarray(t * hop, (t + 1) * hop), spec);
      synthesizer.synthesize(spec, y.subarray(t * hop, (t + 1) * hop));
    }
    const delay = params.fftSize - hop;
    let maxErr = 0;
    for (let i = 0; i + delay < y.length; i++) maxErr = Math.max(maxErr, Math.abs(y[i + delay]! - x[i]!));
    expect(maxErr).toBeLessThan(1e-5);
    expect(siSdr(x.subarray(0, x.length - delay), y.subarray(delay))).toBeGreaterThan(90);
  });

  it('ERB bands cover every bin with at least min_nb_erb_freqs bins each', () => {
    const w = erbWidths(params.sampleRate, params.fftSize, params.nbErb, params.minNbErbFreqs);
    expect(w.length).toBe(32);
    expect(w.reduce((a, b) => a + b, 0)).toBe(481);
    expect(Math.min(...w)).toBeGreaterThanOrEqual(2);
    // Widths grow with frequency on the ERB scale.
    expect(w[31]).toBeGreaterThan(w[10]!);
    const spec = new Float32Array(962).fill(0.5);
    const p = new Float32Array(32);
    bandPower(spec, w, p);
    for (const v of p) expect(v).toBeCloseTo(0.5, 6); // mean of |0.5 + 0.5i|^2
  });

  it('feature normalisation tracks a steady input towards zero mean and unit magnitude', () => {
    const w = erbWidths(params.sampleRate, params.fftSize, params.nbErb, params.minNbErbFreqs);
    const fx = new FeatureExtractor(w, params.nbDf, 0.99);
    const spec = new Float32Array(962).fill(0.01);
    const erb = new Float32Array(32);
    const cplx = new Float32Array(192);
    fx.extract(spec, erb, cplx);
    const firstErb = erb[0]!;
    for (let t = 0; t < 2000; t++) fx.extract(spec, erb, cplx);
    expect(Math.abs(erb[0]!)).toBeLessThan(Math.abs(firstErb));
    expect(Math.abs(erb[0]!)).toBeLessThan(1e-3);
    // x / sqrt(mean |x|): |x| = 0.01 * sqrt(2) -> sqrt(|x|) after convergence.
    expect(Math.hypot(cplx[0]!, cplx[96]!)).toBeCloseTo(Math.sqrt(0.01 * Math.SQRT2), 3);
  });

  it('a slower rise (the comparison option normUpSeconds) lags a step up but follows a step down as before', () => {
    const w = erbWidths(params.sampleRate, params.fftSize, params.nbErb, params.minNbErbFreqs);
    const run = (fx: FeatureExtractor, level: number, frames: number) => {
      const spec = new Float32Array(962).fill(level);
      const erb = new Float32Array(32);
      const cplx = new Float32Array(192);
      for (let t = 0; t < frames; t++) fx.extract(spec, erb, cplx);
      return erb[0]!;
    };
    const same = new FeatureExtractor(w, params.nbDf, 0.99);
    const slow = new FeatureExtractor(w, params.nbDf, 0.99, 0.999);
    // Both settle on a quiet input from the same (-60 dB) start; 0.001 is -57 dB of band power.
    run(same, 0.001, 3000);
    run(slow, 0.001, 3000);
    // 20 dB up for five seconds (500 frames): the symmetric mean has caught up (within 0.2 dB), the
    // slow one still sits about 12 dB below (a rise time constant of 10 s instead of 1 s).
    expect(run(same, 0.01, 500)).toBeLessThan(0.005);
    expect(run(slow, 0.01, 500)).toBeGreaterThan(0.28);
    // 20 dB down again: both fall with the 1 s constant, so both are back within 0.2 dB in 5 s.
    expect(Math.abs(run(same, 0.001, 500))).toBeLessThan(0.005);
    expect(Math.abs(run(slow, 0.001, 500))).toBeLessThan(0.005);
  });

  it('SI-SDR ignores gain and rewards closeness', () => {
    const x = noise(4800, 5);
    const scaled = x.map((v) => v * 0.3);
    expect(siSdr(x, scaled)).toBeGreaterThan(100);
    const n = noise(4800, 9);
    const mix = x.map((v, i) => v + n[i]!);
    expect(siSdr(x, mix)).toBeGreaterThan(-1);
    expect(siSdr(x, mix)).toBeLessThan(1);
  });
});
