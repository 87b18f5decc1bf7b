/**
 * The synthetic C-G-Am-F (I-V-vi-IV) progression in all 12 keys, at four tempi, with and without
 * drums, tunings off by up to 25 cents: the share of time the analyser names the sounding chord
 * (bench only; bench/fixtures/chord-clips.ts renders them, as test/analysis-beats.test.ts does):
 *   node bin/run-ts.mjs bench/analyze-chords-synth.ts
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { chordTimeAccuracy, popProgression, renderChordClip } from '../support/fixtures/chord-clips.ts';
import { writeWav } from '../support/fixtures/synth-clips.ts';

const SECONDS = 20;
const dir = mkdtempSync(join(tmpdir(), 'stemforge-chords-synth-'));
const scores: { name: string; drums: boolean; accuracy: number }[] = [];
for (let tonic = 0; tonic < 12; tonic++) {
  for (const [i, bpm] of [72, 96, 120, 144].entries()) {
    const drums = (tonic + i) % 2 === 1;
    const clip = popProgression(tonic, { bpm, drums, cents: [0, 15, -25, 10][i]! });
    const path = await writeWav(dir, `${clip.name}-${drums}`, renderChordClip(clip, SECONDS));
    const r = await analyzeAudioDetailed({ mixPath: path });
    scores.push({
      name: `${clip.chords.join('-')} ${bpm}`,
      drums,
      accuracy: chordTimeAccuracy(clip, r.chords, 0.5, SECONDS - 0.5),
    });
  }
}
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
const line = (label: string, xs: number[]) =>
  console.log(
    `${label.padEnd(14)} ${xs.length} clips: mean ${mean(xs).toFixed(3)}, worst ${Math.min(...xs).toFixed(3)}, ` +
      `clips read right >= 75 % of the time: ${xs.filter((x) => x >= 0.75).length}/${xs.length}`,
  );
line(
  'all',
  scores.map((s) => s.accuracy),
);
line(
  'with drums',
  scores.filter((s) => s.drums).map((s) => s.accuracy),
);
line(
  'without drums',
  scores.filter((s) => !s.drums).map((s) => s.accuracy),
);
for (const s of scores.filter((x) => x.accuracy < 0.75))
  console.log(`  below 0.75: ${s.name} ${s.drums ? 'drums' : ''} ${s.accuracy.toFixed(3)}`);
rmSync(dir, { recursive: true, force: true });
