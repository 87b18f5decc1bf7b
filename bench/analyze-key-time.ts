/**
 * Key back ends that read the chroma frame by frame (key over time, chord models, polyphonic
 * profiles, frame weighting; support/key-backends.ts) against the shipped whole-input correlation,
 * on the real-music set's keyed excerpts, scored as mir_eval.key.weighted_score (bench only):
 *   node bin/run-ts.mjs bench/analyze-key-time.ts --set DIR [--drums DB] [--partials DECAY] [--list NAME]
 * DIR is what `python3 bench/analyze-realset.py DIR` built. --drums mixes the musdb drum stem in at
 * DB dB over the music's RMS (as bench/analyze-key.ts); --partials sets the chroma front end's
 * harmonic subtraction (support/chroma-variants.ts, partialDecay); --list prints one method's estimates.
 * No tonality gate: every excerpt gets a key, so the figures isolate the key back end.
 * Per-excerpt frame chromas are cached under DIR/key-frames.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE } from '../src/analysis/analyze-audio.ts';
import { ChromaAccumulator, estimateTuning, foldChroma } from '../src/analysis/chroma.ts';
import { chromaVariant } from '../support/chroma-variants.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';
import { mirEvalKeyScore } from '../support/analyze-metrics.ts';
import { type Excerpt, keyMethods } from '../support/key-backends.ts';

const { values } = parseArgs({
  options: {
    set: { type: 'string' },
    drums: { type: 'string' },
    partials: { type: 'string' },
    list: { type: 'string' },
  },
});
const setDir = values.set ?? '/tmp/realset';
const drumsDb = values.drums === undefined ? null : Number(values.drums);
const partialDecay = Number(values.partials ?? 0);

interface Entry {
  name: string;
  file?: string;
  seconds: number;
  key: string | null;
}
const entries = (JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as Entry[])
  .filter((e) => e.key)
  .map((e) => ({ ...e, path: join(setDir, e.file ?? `clips/${e.name}.wav`) }))
  .filter((e) => existsSync(e.path));
const pieces = [...new Set(entries.map((e) => e.name.replace(/-2s$/, '')))].sort();
const half = (name: string) => (pieces.indexOf(name.replace(/-2s$/, '')) % 2 === 0 ? 'A' : 'B');

type Cached = Record<string, { fine: number[]; frames: number[][] }>;
const cacheDir = join(setDir, 'key-frames');
const cacheFile = join(cacheDir, `drums-${drumsDb ?? 'none'}-partials-${partialDecay}.json`);
let cached: Cached = {};
if (existsSync(cacheFile)) cached = JSON.parse(readFileSync(cacheFile, 'utf8')) as Cached;
else {
  const mono = async (path: string) =>
    (await decodeToPlanar(path, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 })).channels[0]!;
  const drums = drumsDb === null ? null : await mono(sharedPath('audio', 'musdb-falcon69', 'drums.wav'));
  const rms = (x: Float32Array) => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / Math.max(1, x.length));
  for (const e of entries) {
    let s = await mono(e.path);
    if (drums && drumsDb !== null) {
      const gain = (rms(s) / (rms(drums) || 1)) * 10 ** (drumsDb / 20);
      s = s.map((v, i) => v + gain * drums[(i + 5 * ANALYSIS_SAMPLE_RATE) % drums.length]!);
    }
    const acc = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE, { frames: true, shaping: chromaVariant({ partialDecay }) });
    for (let i = 0; i < s.length; i += 16_384) acc.push(s.subarray(i, i + 16_384));
    cached[e.name] = { fine: Array.from(acc.fineHistogram()), frames: acc.frameHistograms().map((f) => Array.from(f)) };
  }
  mkdirSync(cacheDir, { recursive: true });
  writeFileSync(cacheFile, JSON.stringify(cached));
}

const excerpts = new Map<string, Excerpt>();
for (const e of entries) {
  const c = cached[e.name]!;
  const fine = Float64Array.from(c.fine);
  const tuning = estimateTuning(fine);
  excerpts.set(e.name, {
    global: foldChroma(fine, tuning),
    frames: c.frames.map((f) => foldChroma(Float64Array.from(f), tuning)).filter((f) => f.some((v) => v > 0)),
  });
}

const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const nA = entries.filter((e) => half(e.name) === 'A').length;
console.log(
  `${entries.length} keyed excerpts (${nA} in half A, ${entries.length - nA} in B); drums ${drumsDb ?? 'none'}, ` +
    `partial subtraction ${partialDecay || 'off'}; MIREX weighted score, no gate`,
);
console.log(`${'method'.padEnd(48)} ${['A', 'B', 'all', '30 s', '2 s'].map((h) => h.padStart(6)).join(' ')}`);
for (const [name, method] of Object.entries(keyMethods())) {
  const scored = entries.map((e) => {
    const est = method(excerpts.get(e.name)!);
    return { e, est, s: mirEvalKeyScore(est, e.key!) };
  });
  if (values.list === name)
    for (const r of scored) console.log(`  ${r.e.name.padEnd(44)} ${r.e.key!.padEnd(9)} ${r.est} ${r.s}`);
  const col = (keep: (r: (typeof scored)[number]) => boolean) =>
    mean(scored.filter(keep).map((r) => r.s))
      .toFixed(3)
      .padStart(6);
  console.log(
    `${name.padEnd(48)} ${col((r) => half(r.e.name) === 'A')} ${col((r) => half(r.e.name) === 'B')} ${col(() => true)} ${col((r) => r.e.seconds > 2)} ${col((r) => r.e.seconds <= 2)}`,
  );
}
