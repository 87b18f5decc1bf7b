/**
 * Writes the synthetic drum grooves (support/fixtures/synth-clips.ts: 26 grooves, 70-178 BPM, with a
 * bass line on the beats; the tempo's body-band rules were built on them) as a beat set, 30 s each,
 * with their beats and bars as labels, so bench/analyze-beats.ts scores them like the rendered sets
 * (bench only; a development set: the beat tracker's settings are checked on it):
 *   node bin/run-ts.mjs bench/analyze-beats-synthset.ts DIR/synth
 *   node bin/run-ts.mjs bench/analyze-beats.ts --set DIR/synth --python PY
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderGroove, TEMPO_CLIPS, writeWav } from '../support/fixtures/synth-clips.ts';

const SECONDS = 30;
const dir = process.argv[2] ?? 'beats-synth';
mkdirSync(join(dir, 'clips'), { recursive: true });
const manifest = [];
for (const c of TEMPO_CLIPS) {
  await writeWav(join(dir, 'clips'), c.name, renderGroove(c, SECONDS));
  const perBar = c.groove === 'waltz' ? 3 : 4;
  const beats: number[] = [];
  for (let t = 0.05; t < SECONDS - 0.1; t += 60 / c.bpm) beats.push(Math.round(t * 1e4) / 1e4);
  manifest.push({
    name: c.name,
    file: `clips/${c.name}.wav`,
    meter: `${perBar}/4`,
    beats,
    downbeats: beats.filter((_, i) => i % perBar === 0),
    beatsPerBar: perBar,
    bpm: c.bpm,
  });
}
writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
console.log(`${manifest.length} clips in ${dir}`);
