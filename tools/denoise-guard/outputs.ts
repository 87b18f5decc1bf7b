/**
 * The product's cleaning of every `NAME.x.f32` in DIR (48 kHz mono float32, as make_mixes.py writes
 * them), written beside it as `NAME.y.f32`. For the mix-back guard experiment (README.md).
 *   node bin/run-ts.mjs tools/denoise-guard/outputs.ts DIR
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { Denoiser } from '../../src/denoise/denoiser.ts';
import { sharedPath } from '../../support/shared.ts';

const dir = process.argv[2];
if (!dir) throw new Error('usage: outputs.ts DIR');
const denoiser = await Denoiser.load(sharedPath('models', 'dfn3'));
for (const file of readdirSync(dir).filter((f) => f.endsWith('.x.f32'))) {
  const bytes = readFileSync(join(dir, file));
  const x = new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4);
  const y = await denoiser.channel().enhanceAll(x);
  writeFileSync(join(dir, file.replace(/\.x\.f32$/, '.y.f32')), Buffer.from(y.buffer, y.byteOffset, y.byteLength));
}
await denoiser.close();
