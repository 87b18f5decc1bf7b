/**
 * What the held-voice guard (src/denoise/held-voice-guard.ts: RNNoise run beside DeepFilterNet3)
 * costs in speed: the same Denoiser with and without it, in process on one thread, alternating the
 * two sides for ROUNDS rounds on SECONDS of noisy speech (shared/audio/denoise/noisy_snr0.wav
 * looped), medians and their ratio.
 *
 *   node bin/run-ts.mjs bench/denoise-guard-cost.ts [SECONDS=60] [ROUNDS=5]
 */
import { cpus } from 'node:os';
import { Denoiser } from '../src/denoise/denoiser.ts';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';
import { readMono } from '../support/denoise-mixes.ts';

const seconds = Number(process.argv[2] ?? 60);
const rounds = Number(process.argv[3] ?? 5);
const clip = await readMono(sharedPath('audio', 'denoise', 'noisy_snr0.wav'), 48_000);
const x = new Float32Array(seconds * 48_000);
for (let i = 0; i < x.length; i++) x[i] = clip[i % clip.length]!;
const sides = [
  { name: 'with the guard', d: await Denoiser.load(sharedPath('models', 'dfn3')), rtf: [] as number[] },
  {
    name: 'without it',
    d: await Denoiser.load(sharedPath('models', 'dfn3'), { heldVoiceGuard: false }),
    rtf: [] as number[],
  },
];
console.log(`${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; ${seconds} s of audio, ${rounds} rounds`);
for (let r = 0; r < rounds; r++) {
  for (const side of r % 2 ? [...sides].reverse() : sides) {
    const t0 = performance.now();
    await side.d.channel().enhanceAll(x);
    side.rtf.push((performance.now() - t0) / 1000 / seconds);
    console.log(`round ${r + 1} ${side.name.padEnd(15)} RTF ${side.rtf.at(-1)!.toFixed(4)}`);
  }
}
const [on, off] = sides.map((side) => median(side.rtf)) as [number, number];
console.log(
  `median RTF: with the guard ${on.toFixed(4)}, without it ${off.toFixed(4)}; ratio ${(on / off).toFixed(3)}`,
);
for (const side of sides) await side.d.close();
