import { Denoiser } from '../src/denoise/denoiser.ts';
import { RealFft } from '../src/denoise/fft.ts';
import { siSdr } from '../src/denoise/si-sdr.ts';
import { mixAtSnr, readMono48 } from './denoise-mixes.ts';
import { rnnoise } from './denoise-rnnoise.ts';
const d = await Denoiser.load('/work/shared/models/dfn3');
const speech = await readMono48('/work/shared/audio/speech/' + (process.argv[2] ?? '198-209-0000.hq.ogg'));
const noise = await readMono48('/work/shared/audio/denoise/noise_freesound_573577.wav');
const { mix, reference } = mixAtSnr(speech, noise, 0);
async function run(x: Float32Array) {
  const ch = d.channel();
  const a = await ch.push(x); const b = await ch.finish();
  const r = new Float32Array(a.length + b.length); r.set(a); r.set(b, a.length); return r;
}
const fft = await RealFft.create(960);
const edges = [150, 300, 600, 1000, 2000, 4000, 8000, 24001];
function bands(x: Float32Array) {
  const out = edges.map(() => 0); const s = new Float32Array(962);
  for (let i = 0; i + 960 <= x.length; i += 480) { fft.forward(x.subarray(i, i + 960), s);
    for (let k = 0; k <= 480; k++) { const p = s[2*k]**2 + s[2*k+1]**2; const hz = k * 50; out[edges.findIndex((e) => hz < e)] += p; } }
  return out.map((v) => (10 * Math.log10(v + 1e-9)).toFixed(1).padStart(6)).join('');
}
function err(ref: Float32Array, est: Float32Array) { let dot = 0, rr = 0; for (let i = 0; i < ref.length; i++) { dot += ref[i] * est[i]; rr += ref[i] ** 2; } const a = dot / rr; return est.map((v, i) => v - a * ref[i]); }
const noiseOnly = mix.map((v, i) => v - reference[i]);
const ours = await run(mix); const rn = await rnnoise(mix);
console.log('bands          ', edges.map((e) => String(e).padStart(6)).join(''));
console.log('ref            ', bands(reference));
console.log('noise          ', bands(noiseOnly));
console.log('ours err       ', bands(err(reference, ours)), siSdr(reference, ours).toFixed(2));
console.log('rn err         ', bands(err(reference, rn)), siSdr(reference, rn).toFixed(2));
console.log('ours(noise)    ', bands(await run(noiseOnly)));
console.log('rn(noise)      ', bands(await rnnoise(noiseOnly)));
const pc = await run(reference);
console.log('ours(clean)err ', bands(err(reference, pc)), siSdr(reference, pc).toFixed(2));
const pr = await rnnoise(reference);
console.log('rn(clean)err   ', bands(err(reference, pr)), siSdr(reference, pr).toFixed(2));
(globalThis as any).GATE = true;
const g = await run(mix);
console.log('ours gated err ', bands(err(reference, g)), siSdr(reference, g).toFixed(2));
console.log('ours(noise) gated', bands(await run(noiseOnly)));
const clean = await readMono48('/work/shared/audio/denoise/clean_freesound_33711.wav');
const n0 = await readMono48('/work/shared/audio/denoise/noisy_snr0.wav');
console.log('snr0 gated', siSdr(clean, await run(n0)).toFixed(2));
