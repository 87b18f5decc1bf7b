/**
 * FFT libraries for the HTDemucs spectrogram (real transforms of 4096 points): PFFFT compiled to
 * WebAssembly (with and without SIMD) vs fft.js (radix-4 JavaScript). One segment needs 672 forward
 * and 2688 inverse transforms.
 *   node bin/run-ts.mjs bench/separate-fft.ts
 */
import FFT from 'fft.js';
import createPffftSimd from '@echogarden/pffft-wasm/simd';
import { RealFft } from '../src/dsp/fft.ts';

const N = 4096;
const ROUNDS = 4000;
const x = Float32Array.from({ length: N }, (_, i) => Math.sin(i * 0.01) + ((i * 7919) % 13) / 13);

function time(label: string, fn: () => void): void {
  for (let i = 0; i < 200; i++) fn();
  const t0 = performance.now();
  for (let i = 0; i < ROUNDS; i++) fn();
  const us = ((performance.now() - t0) * 1000) / ROUNDS;
  console.log(`${label.padEnd(40)} ${us.toFixed(1)} µs/transform  (${((us * 3360) / 1000).toFixed(0)} ms per segment)`);
}

void createPffftSimd; // the wrapper loads it
const simd = await RealFft.create(N);
simd.input.set(x);
time('pffft-wasm SIMD, real forward', () => simd.forwardOrdered());
time('pffft-wasm SIMD, real inverse', () => simd.inverseOrdered());

// @ts-expect-error the non-SIMD build has no type declarations here
const createPffft = (await import('@echogarden/pffft-wasm')).default as () => Promise<{
  HEAPF32: Float32Array;
  _pffft_new_setup(n: number, t: number): number;
  _pffft_aligned_malloc(b: number): number;
  _pffft_transform_ordered(s: number, i: number, o: number, w: number, d: number): void;
}>;
const m = await createPffft();
const setup = m._pffft_new_setup(N, 0);
const [ip, op, wp] = [m._pffft_aligned_malloc(N * 4), m._pffft_aligned_malloc(N * 4), m._pffft_aligned_malloc(N * 4)];
m.HEAPF32.set(x, ip >> 2);
time('pffft-wasm scalar, real forward', () => m._pffft_transform_ordered(setup, ip, op, wp, 0));

const f = new FFT(N);
const out = f.createComplexArray() as number[];
const input = Array.from(x);
time('fft.js, realTransform (half spectrum)', () => f.realTransform(out, input));
const spectrum = f.createComplexArray() as number[];
f.realTransform(spectrum, input);
f.completeSpectrum(spectrum);
const back = f.createComplexArray() as number[];
time('fft.js, inverseTransform (complex)', () => f.inverseTransform(back, spectrum));
