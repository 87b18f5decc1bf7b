/**
 * Beats, downbeats and chords of the analyser on a labelled set, scored by mir_eval (bench only):
 *   node bin/run-ts.mjs bench/analyze-beats.ts --set DIR/test --python PY [--list] [--options JSON]
 * DIR comes from bench/analyze-beats-set.py (dev, test, rubato, chords-dev, chords-test); PY is a
 * Python with mir_eval (docs/analysis.md). `--options` passes other beat/downbeat/chord settings
 * (analyzeAudioDetailed's rhythmOptions), for choosing them on the development sets. `--model PATH`
 * reads the beats with a candidate beat model, `--model none` with none (the onset novelty alone).
 */
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeAudioDetailed, type AnalyzeInput } from '../src/analysis/analyze-audio.ts';

const { values } = parseArgs({
  options: {
    set: { type: 'string' },
    python: { type: 'string', default: 'python3' },
    list: { type: 'boolean' },
    options: { type: 'string' },
    model: { type: 'string' },
  },
});
if (!values.set) throw new Error('usage: --set DIR [--python PY] [--list] [--options JSON]');
const setDir = values.set;
const entries = JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as {
  name: string;
  file: string;
  meter: string;
  beats: number[];
  downbeats: number[];
  bpm: number;
  chords?: [number, number, string][];
}[];
const rhythmOptions = values.options ? (JSON.parse(values.options) as AnalyzeInput['rhythmOptions']) : undefined;

const items = [];
for (const e of entries) {
  const r = await analyzeAudioDetailed({
    mixPath: join(setDir, e.file),
    rhythmOptions,
    beatModelPath: values.model === 'none' ? null : values.model,
  });
  items.push({
    name: e.name,
    meter: e.meter,
    ref: { beats: e.beats, downbeats: e.downbeats, bpm: e.bpm, chords: e.chords },
    est: { beats: r.beats, downbeats: r.downbeats, beatsPerBar: r.beatsPerBar, bpm: r.bpm, chords: r.chords },
  });
}
const args = [join(import.meta.dirname, 'analyze-beats-score.py'), ...(values.list ? ['--list'] : [])];
process.stdout.write(
  execFileSync(values.python, args, { input: JSON.stringify({ set: setDir, items }), encoding: 'utf8' }),
);
