import { Denoiser } from '../src/denoise/denoiser.ts';
import { denoiseFileWith } from '../src/denoise/denoise-file.ts';
import { decodeToPlanar } from '../src/audio/decode.ts';
import { siSdr } from '../src/denoise/si-sdr.ts';
const d = await Denoiser.load('/work/shared/models/dfn3');
const base = '/work/shared/audio/denoise/';
const clean = (await decodeToPlanar(base + 'clean_freesound_33711.wav', { sampleRate: 48000, channels: 1 })).channels[0];
const noisy = (await decodeToPlanar(base + 'noisy_snr0.wav', { sampleRate: 48000, channels: 1 })).channels[0];
console.log('len', clean.length, noisy.length, 'in', siSdr(clean, noisy).toFixed(2));
const t = performance.now();
const r = await denoiseFileWith(d, { inputPath: base + 'noisy_snr0.wav', outputPath: '/tmp/dn/out.wav', format: 'wav' });
const dt = (performance.now() - t) / 1000;
const out = (await decodeToPlanar('/tmp/dn/out.wav', { sampleRate: 48000, channels: 1 })).channels[0];
console.log(r, 'out', siSdr(clean, out).toFixed(2), 'rtf', (dt / r.durationSeconds).toFixed(3), out.length);
// Whole-file enhancer in one window for comparison.
const big = { blockFrames: 100000, contextFrames: 0, crossfadeFrames: 0 };
const ch = d.channel(big);
const a = await ch.push(noisy); const b = await ch.finish();
const whole = new Float32Array(a.length + b.length); whole.set(a); whole.set(b, a.length);
console.log('whole-seq', siSdr(clean, whole).toFixed(2), 'windowed vs whole', siSdr(whole, out).toFixed(2));
const ch2 = d.channel({ blockFrames: 200, contextFrames: 100, crossfadeFrames: 20 });
const p = []; for (let i = 0; i < noisy.length; i += 12345) p.push(await ch2.push(noisy.subarray(i, i + 12345))); p.push(await ch2.finish());
const small = new Float32Array(p.reduce((s, x) => s + x.length, 0)); let o = 0; for (const x of p) { small.set(x, o); o += x.length; }
console.log('small windows', siSdr(clean, small).toFixed(2), 'vs whole', siSdr(whole, small).toFixed(2), small.length);
