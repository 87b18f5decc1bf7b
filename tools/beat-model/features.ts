/**
 * The beat model's training features, computed by the product's own code (src/analysis), so training
 * and inference read the same numbers (training only):
 *   node bin/run-ts.mjs tools/beat-model/features.ts SET_DIR OUT_PREFIX
 * reads SET_DIR/manifest.json (bench/analyze-beats.ts's form) and decodes each piece as the product
 * does (ffmpeg, 22.05 kHz mono, 16384-sample chunks) into OnsetEnvelope, and writes OUT_PREFIX.f32
 * (every piece's beatFeatures, frames x 2·bands, one after another) and OUT_PREFIX.json (per piece:
 * name, frame offset, frames, and its beats and downbeats as onset frames: the frame whose flux
 * shows an onset at that time, beats-and-chords.ts onsetFrameSeconds).
 */
import { closeSync, openSync, readFileSync, writeFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';
import { ANALYSIS_SAMPLE_RATE } from '../../src/analysis/analyze-audio.ts';
import { beatFeatures } from '../../src/analysis/beat-model.ts';
import { ONSET_FRAME, ONSET_HOP, OnsetEnvelope } from '../../src/analysis/onset-envelope.ts';
import { decodeAudio } from '../../src/audio/decode.ts';

const [dir, prefix] = process.argv.slice(2);
if (!dir || !prefix) throw new Error('usage: features.ts SET_DIR OUT_PREFIX');
const pieces = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as {
  name: string;
  file: string;
  beats: number[];
  downbeats: number[];
}[];
const out = openSync(`${prefix}.f32`, 'w');
const index: { name: string; offset: number; frames: number; bands: number; beats: number[]; downbeats: number[] }[] =
  [];
let offset = 0;
const toFrame = (s: number) => (s * ANALYSIS_SAMPLE_RATE - ONSET_FRAME / 2) / ONSET_HOP;
for (const [i, p] of pieces.entries()) {
  const onset = new OnsetEnvelope(ANALYSIS_SAMPLE_RATE);
  for await (const chunk of decodeAudio(join(dir, p.file), {
    sampleRate: ANALYSIS_SAMPLE_RATE,
    channels: 1,
    chunkFrames: 16_384,
    durationSeconds: 600,
  }))
    onset.push(chunk);
  const bands = onset.modelBandCount;
  const x = beatFeatures(onset.modelBandFrames(), bands);
  writeSync(out, new Uint8Array(x.buffer));
  const frames = x.length / (2 * bands);
  index.push({ name: p.name, offset, frames, bands, beats: p.beats.map(toFrame), downbeats: p.downbeats.map(toFrame) });
  offset += frames;
  if (i % 50 === 0) console.log(`${i} / ${pieces.length}`);
}
closeSync(out);
writeFileSync(`${prefix}.json`, JSON.stringify(index));
console.log(`${pieces.length} pieces, ${offset} frames`);
