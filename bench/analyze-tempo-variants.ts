/**
 * Tempo prior variants (centre and width of the log-normal prior, tempo.ts) on a labelled set, each
 * with the shipped octave and triple rules (bench only):
 *   node bin/run-ts.mjs bench/analyze-tempo-variants.ts --set DIR
 * Choose on the rendered development set (bench/analyze-tempo-devset.py), then check once on the
 * real-music set.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE } from '../src/analysis/analyze-audio.ts';
import { OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { estimateTempo } from '../src/analysis/tempo.ts';
import { decodeToPlanar } from '../src/audio/decode.ts';
import { tempoHit, tempoHitOctave } from './analyze-metrics.ts';

const { values } = parseArgs({ options: { set: { type: 'string' } } });
const setDir = values.set ?? '/tmp/realset';
const entries = (
  JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as { file: string; tempo: number | null }[]
).filter((e) => e.tempo);
const envelopes: { env: Parameters<typeof estimateTempo>[0]; rate: number }[] = [];
for (const e of entries) {
  const x = (await decodeToPlanar(join(setDir, e.file), { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 }))
    .channels[0]!;
  const o = new OnsetEnvelope(ANALYSIS_SAMPLE_RATE);
  for (let i = 0; i < x.length; i += 16_384) o.push(x.subarray(i, i + 16_384));
  envelopes.push({
    env: { envelope: o.envelope(), body: o.bodyEnvelope(), onsetFlatness: o.onsetFlatness() },
    rate: o.frameRate,
  });
}
for (const priorBpm of [100, 110, 120]) {
  for (const priorOctaves of [0.6, 0.8, 1, 1.3]) {
    let a1 = 0;
    let a2 = 0;
    entries.forEach((e, i) => {
      const t = estimateTempo(envelopes[i]!.env, envelopes[i]!.rate, { priorBpm, priorOctaves })?.bpm ?? null;
      a1 += +tempoHit(t, e.tempo!);
      a2 += +tempoHitOctave(t, e.tempo!);
    });
    console.log(
      `prior ${priorBpm} BPM, ${priorOctaves} octaves: Acc1 ${(a1 / entries.length).toFixed(3)}, Acc2 ${(a2 / entries.length).toFixed(3)}`,
    );
  }
}
