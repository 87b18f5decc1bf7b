import { Denoiser } from '../src/denoise/denoiser.ts';
import { siSdr } from '../src/denoise/si-sdr.ts';
import { mixAtSnr, readMono48 } from './denoise-mixes.ts';
import { rnnoise } from './denoise-rnnoise.ts';
const d = await Denoiser.load('/work/shared/models/dfn3');
const noise = await readMono48('/work/shared/audio/denoise/noise_freesound_573577.wav');
async function run(x: Float32Array) {
  const ch = d.channel();
  const a = await ch.push(x); const b = await ch.finish();
  const r = new Float32Array(a.length + b.length); r.set(a); r.set(b, a.length); return r;
}
const rmsDb = (x: Float32Array) => 10 * Math.log10(x.reduce((s, v) => s + v * v, 0) / x.length);
for (const f of ['198-209-0000.hq.ogg', '3436-172162-0000.hq.ogg', '5703-47212-0000.hq.ogg']) {
  const speech = await readMono48('/work/shared/audio/speech/' + f);
  for (const snr of [0, 10]) {
    const { mix, reference } = mixAtSnr(speech, noise, snr);
    const line = [f, snr, 'peak0.9 rms', rmsDb(mix).toFixed(1)];
    for (const lvl of [-15, -25, -35]) {
      const g = 10 ** ((lvl - rmsDb(mix)) / 20);
      const m = mix.map((v) => v * g);
      line.push(`${lvl}: ours ${siSdr(reference, await run(m)).toFixed(2)} rn ${siSdr(reference, await rnnoise(m)).toFixed(2)}`);
    }
    console.log(line.join(' | '));
  }
}
