/**
 * Chooses the tempo estimator's settings on development sets, then scores the choice once on a test
 * set (bench only):
 *   node bin/run-ts.mjs bench/analyze-tempo-variants.ts --set DIR [--set DIR ...] [--test DIR]
 * Every setting of a grid (the log-normal prior's centre and width, and the score a level needs
 * before the body-band rules may move the winner there: TempoOptions, tempo.ts) is scored by its
 * hits summed over the --set directories; as neighbouring settings differ by a clip or two, the
 * ranking is by that sum averaged over the setting and its grid neighbours. The development sets:
 * rendered pieces (bench/analyze-tempo-devset.py), Debian game modules
 * (bench/analyze-tempo-modset.py) and the synthetic grooves (bench/analyze-tempo-synthset.ts); the
 * test: the real-music set (bench/analyze-realset.py), which only the top settings are run on.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE } from '../src/analysis/analyze-audio.ts';
import { OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { estimateTempo, type TempoOptions } from '../src/analysis/tempo.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { tempoHit, tempoHitOctave } from '../support/analyze-metrics.ts';

const { values } = parseArgs({
  options: { set: { type: 'string', multiple: true }, test: { type: 'string' }, top: { type: 'string' } },
});
if (!values.set?.length) throw new Error('give one --set DIR or more (development sets)');

interface Clip {
  tempo: number;
  env: Parameters<typeof estimateTempo>[0];
  rate: number;
}

async function load(setDir: string): Promise<Clip[]> {
  const entries = (
    JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as { file: string; tempo: number | null }[]
  ).filter((e) => e.tempo);
  const clips: Clip[] = [];
  for (const e of entries) {
    const x = (await decodeToPlanar(join(setDir, e.file), { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 }))
      .channels[0]!;
    const o = new OnsetEnvelope(ANALYSIS_SAMPLE_RATE);
    for (let i = 0; i < x.length; i += 16_384) o.push(x.subarray(i, i + 16_384));
    const env = { envelope: o.envelope(), body: o.bodyEnvelope(), onsetFlatness: o.onsetFlatness() };
    clips.push({ tempo: e.tempo!, env, rate: o.frameRate });
  }
  return clips;
}

const hits = (clips: Clip[], options: TempoOptions) => {
  let acc1 = 0;
  let acc2 = 0;
  for (const c of clips) {
    const t = estimateTempo(c.env, c.rate, options)?.bpm ?? null;
    acc1 += +tempoHit(t, c.tempo);
    acc2 += +tempoHitOctave(t, c.tempo);
  }
  return { acc1, acc2 };
};

const CENTRES = [110, 115, 120, 125, 130];
const WIDTHS = [0.6, 0.7, 0.8, 0.9, 1, 1.15];
const GATES = [0, 0.4, 0.5, 0.6, 0.7, Number.POSITIVE_INFINITY];
const sets = await Promise.all(values.set.map(load));
const grid = CENTRES.flatMap((priorBpm, p) =>
  WIDTHS.flatMap((priorOctaves, w) =>
    GATES.map((levelMoveMinScore, g) => {
      const per = sets.map((s) => hits(s, { priorBpm, priorOctaves, levelMoveMinScore }).acc1);
      return {
        at: [p, w, g],
        options: { priorBpm, priorOctaves, levelMoveMinScore },
        per,
        sum: per.reduce((a, b) => a + b),
      };
    }),
  ),
);
const near = (a: number[], b: number[]) => a.every((v, i) => Math.abs(v - b[i]!) <= 1);
const ranked = grid
  .map((r) => {
    const around = grid.filter((q) => near(q.at, r.at));
    return { ...r, smooth: around.reduce((s, q) => s + q.sum, 0) / around.length };
  })
  .sort((a, b) => b.smooth - a.smooth);
const total = sets.reduce((n, s) => n + s.length, 0);
console.log(`settings ranked on ${values.set.join(' + ')} (${total} clips): neighbourhood mean, own hits per set`);
const describe = (o: TempoOptions) =>
  `prior ${o.priorBpm} BPM x ${o.priorOctaves} oct, level move needs ${o.levelMoveMinScore}`;
for (const r of ranked.slice(0, 10))
  console.log(`  ${describe(r.options).padEnd(52)} ${r.smooth.toFixed(2)}  ${r.per.join(' / ')}`);
const BEFORE: Required<Pick<TempoOptions, 'priorBpm' | 'priorOctaves' | 'levelMoveMinScore'>> = {
  priorBpm: 120,
  priorOctaves: 1,
  levelMoveMinScore: 0,
};
const shipped = ranked.findIndex(
  (r) =>
    r.options.priorBpm === BEFORE.priorBpm &&
    r.options.priorOctaves === BEFORE.priorOctaves &&
    r.options.levelMoveMinScore === BEFORE.levelMoveMinScore,
);
if (shipped >= 0)
  console.log(
    `  before issue 33 (${describe(ranked[shipped]!.options)}): rank ${shipped + 1} of ${ranked.length}, ${ranked[shipped]!.smooth.toFixed(2)}  ${ranked[shipped]!.per.join(' / ')}`,
  );
if (values.test) {
  const test = await load(values.test);
  const show = (o: TempoOptions) => {
    const { acc1, acc2 } = hits(test, o);
    return `Acc1 ${(acc1 / test.length).toFixed(3)} (${acc1}/${test.length}), Acc2 ${(acc2 / test.length).toFixed(3)}`;
  };
  console.log(`test set ${values.test}:`);
  for (const r of ranked.slice(0, Number(values.top ?? 8)))
    console.log(`  ${describe(r.options).padEnd(52)} ${show(r.options)}`);
  console.log(`  ${'before issue 33'.padEnd(52)} ${show(BEFORE)}`);
}
