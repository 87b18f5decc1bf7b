/**
 * Writes the synthetic tempo clips of bench/analyze.ts (drum grooves with a bass line, the set the
 * body-band rules were built on) and ../shared/audio/tempo-key/126bpm.mp3 into DIR with a manifest,
 * so bench/analyze-tempo.ts and bench/analyze-tempo-variants.ts can read them like the other sets
 * (bench only):
 *   node bin/run-ts.mjs bench/analyze-tempo-synthset.ts DIR
 */
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { renderGroove, TEMPO_CLIPS, writeWav } from '../support/fixtures/synth-clips.ts';

const dir = process.argv[2] ?? 'tempo-synthset';
mkdirSync(join(dir, 'clips'), { recursive: true });
const manifest: { name: string; file: string; tempo: number }[] = [];
for (const c of TEMPO_CLIPS) {
  await writeWav(join(dir, 'clips'), c.name, renderGroove(c, 30));
  manifest.push({ name: c.name, file: `clips/${c.name}.wav`, tempo: c.bpm });
}
copyFileSync(sharedPath('audio', 'tempo-key', '126bpm.mp3'), join(dir, 'clips', '126bpm.mp3'));
manifest.push({ name: '126bpm', file: 'clips/126bpm.mp3', tempo: 126 });
writeFileSync(join(dir, 'manifest.json'), JSON.stringify(manifest, null, 1));
console.log(`${manifest.length} clips in ${dir}`);
