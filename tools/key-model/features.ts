/**
 * The key model's training features, computed by the product's own code (src/analysis), so training
 * and inference read the same numbers (training only):
 *   node bin/run-ts.mjs tools/key-model/features.ts DATA_DIR SPLIT
 * reads DATA_DIR/SPLIT.json and its raw float32 22.05 kHz pieces (make_data.py), and writes
 * DATA_DIR/SPLIT.features.f32 (every piece's semitone spectrogram, frames x 72, one after another)
 * and DATA_DIR/SPLIT.features.json (per piece: frame offset, frames, tonic, mode).
 */
import { readFileSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { join } from 'node:path';
import { ANALYSIS_SAMPLE_RATE } from '../../src/analysis/analyze-audio.ts';
import { ChromaAccumulator, estimateTuning } from '../../src/analysis/chroma.ts';
import { KEY_SEMITONES, KeySpectrogram } from '../../src/analysis/key-spectrogram.ts';

const [dir, split] = process.argv.slice(2);
if (!dir || !split) throw new Error('usage: features.ts DATA_DIR SPLIT');
const pieces = JSON.parse(readFileSync(join(dir, `${split}.json`), 'utf8')) as {
  file: string;
  tonic: number;
  mode: string | null;
}[];
const out = openSync(join(dir, `${split}.features.f32`), 'w');
const index: { offset: number; frames: number; tonic: number; mode: string | null }[] = [];
let offset = 0;
for (const [i, p] of pieces.entries()) {
  const buf = readFileSync(join(dir, p.file));
  const samples = new Float32Array(buf.buffer, buf.byteOffset, buf.byteLength / 4);
  const chroma = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE);
  const spec = new KeySpectrogram(ANALYSIS_SAMPLE_RATE);
  // The same 16384-sample chunks the product decodes in.
  for (let s = 0; s < samples.length; s += 16_384) {
    const chunk = samples.slice(s, s + 16_384);
    chroma.push(chunk);
    spec.push(chunk);
  }
  const frames = spec.semitones(estimateTuning(chroma.fineHistogram()));
  writeSync(out, new Uint8Array(frames.buffer));
  const n = frames.length / KEY_SEMITONES;
  index.push({ offset, frames: n, tonic: p.tonic, mode: p.mode });
  offset += n;
  if (i % 500 === 0) console.log(`${split}: ${i} / ${pieces.length}`);
}
closeSync(out);
writeFileSync(join(dir, `${split}.features.json`), JSON.stringify(index));
console.log(`${split}: ${pieces.length} pieces, ${offset} frames`);
