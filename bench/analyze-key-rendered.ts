/**
 * The profile method and the learned key model on rendered pieces the model never trained on (the
 * recipe's val split: another seed, same composer; bench only):
 *   node bin/run-ts.mjs bench/analyze-key-rendered.ts DATA_DIR [--model PATH] [--pieces N]
 * DATA_DIR is what tools/key-model/make_data.py wrote (val.json and val/*.f32). Every tonal piece is
 * scored whole and on its middle 2 s (mir_eval weighting), both methods on the same audio.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE } from '../src/analysis/analyze-audio.ts';
import { ChromaAccumulator, estimateTuning, foldChroma } from '../src/analysis/chroma.ts';
import { estimateKey } from '../src/analysis/key.ts';
import { estimateKeyWithModel } from '../src/analysis/key-model.ts';
import { formatKey, type Mode } from '../src/analysis/key-names.ts';
import { KeySpectrogram } from '../src/analysis/key-spectrogram.ts';
import { mirEvalKeyScore } from '../support/analyze-metrics.ts';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: { model: { type: 'string' }, pieces: { type: 'string', default: '300' } },
});
const dir = positionals[0] ?? '/var/tmp/stemforge-key-data';
const pieces = (
  JSON.parse(readFileSync(join(dir, 'val.json'), 'utf8')) as { file: string; tonic: number; mode: Mode | null }[]
)
  .filter((p) => p.mode)
  .slice(0, Number(values.pieces));
const scores: Record<string, number[]> = {};
const add = (k: string, v: number) => {
  scores[k] ??= [];
  scores[k].push(v);
};
for (const p of pieces) {
  const buf = readFileSync(join(dir, p.file));
  const all = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const mid = Math.max(0, Math.floor(all.length / 2 - ANALYSIS_SAMPLE_RATE));
  const label = formatKey({ tonic: p.tonic, mode: p.mode! });
  for (const [part, x] of [
    ['whole', all],
    ['middle 2 s', all.slice(mid, mid + 2 * ANALYSIS_SAMPLE_RATE)],
  ] as const) {
    const chroma = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE);
    const spec = new KeySpectrogram(ANALYSIS_SAMPLE_RATE);
    for (let i = 0; i < x.length; i += 16_384) {
      chroma.push(x.subarray(i, i + 16_384));
      spec.push(x.subarray(i, i + 16_384));
    }
    const tuning = estimateTuning(chroma.fineHistogram());
    const profile = estimateKey(foldChroma(chroma.fineHistogram(), tuning));
    const model = await estimateKeyWithModel(spec.semitones(tuning), values.model);
    add(`${part}: profile`, mirEvalKeyScore(profile?.name ?? null, label));
    add(`${part}: model`, mirEvalKeyScore(model?.name ?? null, label));
  }
}
for (const [k, v] of Object.entries(scores))
  console.log(`${k.padEnd(20)} ${(v.reduce((a, b) => a + b, 0) / v.length).toFixed(3)} over ${v.length} pieces`);
