/**
 * Dumps every stage of our DeepFilterNet3 port for one 48 kHz mono file, as raw little-endian
 * float32, so that bench/denoise-reference.py (an independent numpy/onnxruntime reference written
 * from upstream's definitions) can compare them stage by stage:
 *
 *   node bin/run-ts.mjs bench/denoise-stages.ts <input.wav> <out-dir>
 *   python3 bench/denoise-reference.py <input.wav> <out-dir>
 *
 * Files: spec.f32 [T, 481, 2] (STFT, one FFT length of zeros appended like enhance.py), erb.f32
 * [T, 32] and cplx.f32 [T, 2, 96] (features), mask.f32 [T, 32] and coefs.f32 [T, 96, 5, 2] (one
 * whole-sequence network run on the features shifted by conv_lookahead), widths.f32 (ERB band
 * widths), and the product's outputs: out-full.f32 (one window), out-default.f32 (the default
 * windowing), out-product.f32 (everything the product does, start-up handling and guard included).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { enhanceFrame } from '../src/denoise/deep-filter.ts';
import { erbWidths } from '../src/denoise/erb.ts';
import { FeatureExtractor } from '../src/denoise/features.ts';
import { RealFft } from '../src/dsp/fft.ts';
import { loadDfn3Model, normAlpha } from '../src/denoise/model-files.ts';
import { Dfn3Network } from '../src/denoise/network.ts';
import type { WindowingOptions } from '../src/denoise/channel-enhancer.ts';
import { Denoiser, type DenoiserOptions } from '../src/denoise/denoiser.ts';
import { StftAnalyzer, vorbisWindow } from '../src/denoise/stft.ts';
import { sharedPath } from '../support/shared.ts';

const [input, outDir] = process.argv.slice(2);
if (!input || !outDir) throw new Error('usage: bench/denoise-stages.ts <input.wav> <out-dir>');
mkdirSync(outDir, { recursive: true });
const save = (name: string, x: Float32Array | Int32Array) =>
  writeFileSync(join(outDir, name), Buffer.from(Float32Array.from(x).buffer));

const modelDir = sharedPath('models', 'dfn3');
const x = (await decodeToPlanar(input, { sampleRate: 48_000, channels: 1 })).channels[0]!;
const model = await loadDfn3Model(modelDir);
const p = model.params;
const F = p.fftSize / 2 + 1;
const fft = await RealFft.create(p.fftSize);
const window = vorbisWindow(p.fftSize);
const widths = erbWidths(p.sampleRate, p.fftSize, p.nbErb, p.minNbErbFreqs);
save('widths.f32', widths);

const padded = new Float32Array(x.length + p.fftSize);
padded.set(x);
const T = Math.floor(padded.length / p.hopSize);
const analyzer = new StftAnalyzer(fft, window, p.hopSize);
const features = new FeatureExtractor(widths, p.nbDf, normAlpha(p));
const spec = new Float32Array(T * 2 * F);
const erb = new Float32Array(T * p.nbErb);
const cplx = new Float32Array(T * 2 * p.nbDf);
for (let t = 0; t < T; t++) {
  const s = spec.subarray(t * 2 * F, (t + 1) * 2 * F);
  analyzer.analyze(padded.subarray(t * p.hopSize, (t + 1) * p.hopSize), s);
  features.extract(
    s,
    erb.subarray(t * p.nbErb, (t + 1) * p.nbErb),
    cplx.subarray(t * 2 * p.nbDf, (t + 1) * 2 * p.nbDf),
  );
}
save('spec.f32', spec);
save('erb.f32', erb);
save('cplx.f32', cplx);

// Network on the whole sequence, features read conv_lookahead frames ahead (zeros past the end).
const net = await Dfn3Network.create(model);
const la = p.convLookahead;
const featErb = new Float32Array(T * p.nbErb);
const featSpec = new Float32Array(2 * T * p.nbDf);
for (let t = 0; t + la < T; t++) {
  featErb.set(erb.subarray((t + la) * p.nbErb, (t + la + 1) * p.nbErb), t * p.nbErb);
  const c = cplx.subarray((t + la) * 2 * p.nbDf, (t + la + 1) * 2 * p.nbDf);
  featSpec.set(c.subarray(0, p.nbDf), t * p.nbDf);
  featSpec.set(c.subarray(p.nbDf), (T + t) * p.nbDf);
}
const { mask, coefs } = await net.run(featErb, featSpec, T);
save('mask.f32', mask);
save('coefs.f32', coefs);
const enh = new Float32Array(T * 2 * F);
const stride = p.nbDf * p.dfOrder * 2;
for (let t = 0; t < T; t++) {
  enhanceFrame(
    { nbDf: p.nbDf, dfOrder: p.dfOrder, dfLookahead: p.dfLookahead, freqBins: F },
    t,
    (k) => (k >= 0 && k < T ? spec.subarray(k * 2 * F, (k + 1) * 2 * F) : undefined),
    mask.subarray(t * p.nbErb, (t + 1) * p.nbErb),
    coefs.subarray(t * stride, (t + 1) * stride),
    widths,
    enh.subarray(t * 2 * F, (t + 1) * 2 * F),
  );
}
save('enh.f32', enh);
await net.release();
fft.dispose();

async function product(name: string, opts: DenoiserOptions, windowing?: WindowingOptions) {
  const d = await Denoiser.load(modelDir, opts);
  save(name, await d.channel({ windowing }).enhanceAll(x, x.length || 1));
  await d.close();
}
const raw: DenoiserOptions = { highPassHz: 0, startup: 'none', guard: false };
await product('out-full.f32', raw, { blockFrames: 100_000, contextFrames: 0, crossfadeFrames: 0 });
await product('out-default.f32', raw);
await product('out-product.f32', {});
console.log(`wrote ${T} frames of every stage to ${outDir}`);
