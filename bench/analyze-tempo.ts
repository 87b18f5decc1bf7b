/**
 * Tempo accuracy of the analyser on a labelled set, with every miss's ratio to the label (bench only):
 *   node bin/run-ts.mjs bench/analyze-tempo.ts --set DIR [--list]
 * DIR is the rendered development set (bench/analyze-tempo-devset.py: meter and drums known, where
 * tempo rules are chosen) or the real-music set (bench/analyze-realset.py: the test). Acc1: within
 * 4 %; Acc2: also at x2, 1/2, x3, 1/3 (as bench/analyze-score.py).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { tempoHit, tempoHitOctave } from '../support/analyze-metrics.ts';

const { values } = parseArgs({ options: { set: { type: 'string' }, list: { type: 'boolean' } } });
const setDir = values.set ?? '/tmp/realset';
const entries = (
  JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as {
    name: string;
    file: string;
    tempo: number | null;
    meter?: string;
    drums?: boolean;
  }[]
).filter((e) => e.tempo);

const RATIOS: [string, number][] = [
  ['x2', 2],
  ['/2', 0.5],
  ['x3/2', 1.5],
  ['x2/3', 2 / 3],
  ['x3', 3],
  ['/3', 1 / 3],
  ['x4/3', 4 / 3],
  ['x3/4', 0.75],
];
const groups = new Map<string, { n: number; acc1: number; acc2: number }>();
const misses = new Map<string, number>();
const add = (g: string, a1: boolean, a2: boolean) => {
  const r = groups.get(g) ?? { n: 0, acc1: 0, acc2: 0 };
  r.n++;
  r.acc1 += +a1;
  r.acc2 += +a2;
  groups.set(g, r);
};
for (const e of entries) {
  const r = await analyzeAudioDetailed({ mixPath: join(setDir, e.file) });
  const a1 = tempoHit(r.bpm, e.tempo!);
  const a2 = tempoHitOctave(r.bpm, e.tempo!);
  add('all', a1, a2);
  if (e.meter) add(`meter ${e.meter}`, a1, a2);
  if (e.drums !== undefined) add(e.drums ? 'drums' : 'no drums', a1, a2);
  let why = '';
  if (!a1) {
    why = RATIOS.find(([, f]) => tempoHit(r.bpm, e.tempo! * f))?.[0] ?? 'other';
    misses.set(why, (misses.get(why) ?? 0) + 1);
  }
  if (values.list || !a1)
    console.log(
      `  ${e.name.padEnd(36)} ${String(e.tempo).padStart(7)} ${String(r.bpm).padStart(7)} ${e.meter ?? ''} ${e.drums === undefined ? '' : e.drums ? 'drums' : ''} ${why}`,
    );
}
for (const [g, r] of groups)
  console.log(
    `${g.padEnd(12)} n ${String(r.n).padStart(3)}  Acc1 ${(r.acc1 / r.n).toFixed(3)}  Acc2 ${(r.acc2 / r.n).toFixed(3)}`,
  );
console.log(`misses by ratio to the label: ${[...misses].map(([k, v]) => `${k} ${v}`).join(', ')}`);
