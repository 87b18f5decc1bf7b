/**
 * Singing through the voice cleaner, as `denoiseVocals` uses it: the musdb excerpt's vocal stem
 * (../shared/audio/musdb-falcon69, 6 s) with the rest of the song (other + bass + drums) mixed under
 * it as bleed at 20, 15 and 10 dB below, and alone. Ours in process (48 kHz), for each attenuation
 * limit given; prints the SI-SDR gain over the input against the vocal stem, whole and per 2 s.
 *
 *   node bin/run-ts.mjs bench/denoise-vocals.ts [--limits 0,6,10,15]
 */
import { parseArgs } from 'node:util';
import { Denoiser } from '../src/denoise/denoiser.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sharedPath } from '../support/shared.ts';
import { readMono48 } from '../support/denoise-mixes.ts';

const { values } = parseArgs({ options: { limits: { type: 'string', default: '0,6,10,15' } } });
const stem = (name: string) => readMono48(sharedPath('audio', 'musdb-falcon69', `${name}.wav`));
const vocals = await stem('vocals');
const rest = new Float32Array(vocals.length);
for (const name of ['other', 'bass', 'drums']) {
  const x = await stem(name);
  for (let i = 0; i < rest.length; i++) rest[i]! += x[i] ?? 0;
}
const energy = (x: Float32Array) => x.reduce((s, v) => s + v * v, 0);
const SEGMENT = 2 * 48_000;
const denoiser = await Denoiser.load(sharedPath('models', 'dfn3'));
console.log(
  `vocal stem ${(vocals.length / 48_000).toFixed(1)} s; SI-SDR against the vocal stem, dB: of the output where there is no bleed, else its gain over the input`,
);
console.log('limit dB | bleed        | whole  | per 2 s');
for (const limit of values.limits.split(',').map(Number)) {
  for (const bleed of [null, 20, 15, 10]) {
    const g = bleed === null ? 0 : Math.sqrt(energy(vocals) / energy(rest) / 10 ** (bleed / 10));
    const x = vocals.map((v, i) => v + g * rest[i]!);
    const y = await denoiser.channel({ attenuationLimitDb: limit }).enhanceAll(x);
    const gain = (s: number, e: number) =>
      siSdr(vocals.subarray(s, e), y.subarray(s, e)) -
      (bleed === null ? 0 : siSdr(vocals.subarray(s, e), x.subarray(s, e)));
    const segments: string[] = [];
    for (let s = 0; s + SEGMENT <= x.length; s += SEGMENT)
      segments.push(
        gain(s, s + SEGMENT)
          .toFixed(1)
          .padStart(6),
      );
    const label = bleed === null ? 'none' : `${bleed} dB below`;
    console.log(
      `${String(limit).padStart(8)} | ${label.padEnd(12)} | ${gain(0, x.length).toFixed(2).padStart(6)} | ${segments.join(' ')}`,
    );
  }
}
await denoiser.close();
