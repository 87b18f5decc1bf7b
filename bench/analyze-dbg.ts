import { decodeAudio } from '../src/audio/decode.ts';
import { OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { autocorrelation } from '../src/analysis/autocorrelation.ts';
const f = process.argv[2];
const o = new OnsetEnvelope(22050);
for await (const c of decodeAudio(f, { sampleRate: 22050, channels: 1 })) o.push(c);
const env = o.envelope();
const fr = o.frameRate;
// simple per-bpm Fourier energy (h=1 only and sum)
function E(bpm: number, hs: number[]) {
  let t = 0;
  let mean = env.reduce((a, b) => a + b, 0) / env.length;
  for (const h of hs) {
    let re = 0, im = 0;
    const w = 2 * Math.PI * h * bpm / 60 / fr;
    for (let i = 0; i < env.length; i++) { re += (env[i] - mean) * Math.cos(w * i); im += (env[i] - mean) * Math.sin(w * i); }
    t += (re * re + im * im);
  }
  return t;
}
const lo = Number(process.argv[3] ?? 60), hi = Number(process.argv[4] ?? 200), st = Number(process.argv[5] ?? 1);
for (let b = lo; b <= hi; b += st) console.log(b.toFixed(2), E(b, [1]).toExponential(2), E(b, [1,2,3,4]).toExponential(2));
