/**
 * Writes the denoise benchmark's sets (bench/denoise-set.ts: the evaluation set, the held-out
 * LibriSpeech utterances and, with VOICES, the KLettres voices) into DIR for the mix-back guard
 * experiment: per case `NAME.x.f32` (the noisy input at 48 kHz), `NAME.y.f32` (the product's
 * output) and `NAME.ref.f32` (the clean reference at the case's own rate, named in NAME's prefix).
 *   node bin/run-ts.mjs tools/denoise-guard/eval-set.ts DIR [VOICES]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readMono } from '../../support/denoise-mixes.ts';
import { buildEvalSet, heldOutItems, speechItems, voiceItems } from '../../support/denoise-set.ts';
import { Denoiser } from '../../src/denoise/denoiser.ts';
import { sharedPath } from '../../support/shared.ts';

const [dir, voices] = process.argv.slice(2);
if (!dir) throw new Error('usage: eval-set.ts DIR [VOICES]');
mkdirSync(dir, { recursive: true });
const items = [...speechItems(), ...heldOutItems(), ...(voices ? voiceItems(voices) : [])];
const cases = await buildEvalSet(dir, items);
const denoiser = await Denoiser.load(sharedPath('models', 'dfn3'));
const save = (path: string, x: Float32Array) => writeFileSync(path, Buffer.from(x.buffer, x.byteOffset, x.byteLength));
for (const c of cases) {
  const x = await readMono(c.noisyPath, 48_000);
  const base = join(dir, `${c.rate}.${c.name.replaceAll(' ', '.')}`);
  save(`${base}.x.f32`, x);
  save(`${base}.y.f32`, await denoiser.channel().enhanceAll(x));
  save(`${base}.ref.f32`, c.clean);
}
await denoiser.close();
