/**
 * The key score of the whole analyser (analyzeAudioDetailed, tonality gate included) on the
 * real-music set's keyed excerpts as they are and with the musdb drum stem (looped) mixed in at
 * 0 and +6 dB over the music's RMS, as drum-heavy electronic music would sound (bench only):
 *   node bin/run-ts.mjs bench/analyze-drums.ts --set DIR [--cache DIR]
 * DIR is what `python3 bench/analyze-realset.py DIR` built. Scores as mir_eval.key.weighted_score.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';
import { mirEvalKeyScore } from '../support/analyze-metrics.ts';
import { SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';

const { values } = parseArgs({ options: { set: { type: 'string' }, cache: { type: 'string' } } });
const setDir = values.set ?? '/tmp/realset';
const cache = values.cache ?? join(setDir, 'with-drums');
mkdirSync(cache, { recursive: true });
const manifest = JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as {
  name: string;
  file: string;
  key: string | null;
  seconds: number;
}[];
const mono = async (path: string) => (await decodeToPlanar(path, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
const drums = await mono(sharedPath('audio', 'musdb-falcon69', 'drums.wav'));
const rms = (x: Float32Array) => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / Math.max(1, x.length));

for (const db of [null, 0, 6]) {
  const scores: { s: number; short: boolean; none: boolean }[] = [];
  for (const e of manifest.filter((x) => x.key)) {
    let path = join(setDir, e.file);
    if (db !== null) {
      const name = `${e.name}-drums${db}`;
      path = join(cache, `${name}.wav`);
      if (!existsSync(path)) {
        const music = await mono(join(setDir, e.file));
        const gain = (rms(music) / rms(drums)) * 10 ** (db / 20);
        await writeWav(
          cache,
          name,
          music.map((v, i) => v + gain * drums[(i + 5 * SYNTH_RATE) % drums.length]!),
        );
      }
    }
    const r = await analyzeAudioDetailed({ mixPath: path });
    scores.push({ s: mirEvalKeyScore(r.key, e.key!), short: e.seconds <= 2, none: r.key === null });
  }
  const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
  const short = scores.filter((x) => x.short);
  console.log(
    `drums ${db === null ? 'none ' : `${db} dB`.padEnd(5)}: key MIREX ${mean(scores.map((x) => x.s)).toFixed(3)} of ${scores.length}, 2 s ${mean(short.map((x) => x.s)).toFixed(3)} (${short.filter((x) => x.none).length} of ${short.length} null)`,
  );
}
