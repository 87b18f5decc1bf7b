/**
 * Key-estimation variants on the real-music set, scored on two halves so a choice made on one half
 * is checked on the other (bench only):
 *   node bin/run-ts.mjs bench/analyze-key.ts --set DIR [--only NAME,...]
 * DIR is what `python3 bench/analyze-realset.py DIR` built; the labels are read from its
 * manifest.json (or bench/fixtures/analyze-realset-labels.json with DIR/clips/NAME.wav).
 * The halves split by piece (an excerpt and its 2 s excerpt fall in the same half), alternating in
 * name order. Each variant is a chroma front end (support/chroma-variants.ts) times a key back end (profiles,
 * bass weight); every variant is printed with its MIREX score on half A, half B, all, and the 2 s
 * excerpts alone.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { ANALYSIS_SAMPLE_RATE, FRAME_CONTRAST_OFFSET, MIN_TONALITY } from '../src/analysis/analyze-audio.ts';
import { ChromaAccumulator, estimateTuning, foldChroma } from '../src/analysis/chroma.ts';
import { type ChromaVariant, chromaVariant } from '../support/chroma-variants.ts';
import { chromaContrast, estimateKey } from '../src/analysis/key.ts';
import { EDMA, KRUMHANSL, type KeyProfile, TEMPERLEY } from '../src/analysis/key-profiles.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';
import { mirEvalKeyScore as mirexKeyScore } from '../support/analyze-metrics.ts';

// Two more published profiles, compared here only (the product ships KRUMHANSL, TEMPERLEY, EDMA).
/**
 * Albrecht & Shanahan 2013, "The use of large corpora to train a new type of key-finding
 * algorithm" (Music Perception 31(1)): pitch-class durations in 490 common-practice pieces.
 */
const ALBRECHT_SHANAHAN: KeyProfile = {
  name: 'albrecht-shanahan',
  major: [0.238, 0.006, 0.111, 0.006, 0.137, 0.094, 0.016, 0.214, 0.009, 0.08, 0.008, 0.081],
  minor: [0.22, 0.006, 0.104, 0.123, 0.019, 0.103, 0.012, 0.214, 0.062, 0.022, 0.061, 0.052],
};

/** Bellman 2005 / Budge 1943: chord-frequency-derived profiles (as tabulated in Sapp's Humdrum tools). */
const BELLMAN_BUDGE: KeyProfile = {
  name: 'bellman-budge',
  major: [16.8, 0.86, 12.95, 1.41, 13.49, 11.93, 1.25, 20.28, 1.8, 8.04, 0.62, 10.57],
  minor: [18.16, 0.69, 12.99, 13.34, 1.07, 11.15, 1.38, 21.07, 7.49, 1.53, 0.92, 10.21],
};

const { values } = parseArgs({
  options: { set: { type: 'string' }, only: { type: 'string' }, drums: { type: 'string' } },
});
/**
 * --drums DB: every excerpt is also mixed with the musdb drum stem (looped) at DB dB above the
 * music's RMS, as drum-heavy electronic music would be; the key label stays the music's.
 */
const drumsDb = values.drums === undefined ? null : Number(values.drums);
const drumStem =
  drumsDb === null
    ? null
    : (
        await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', 'drums.wav'), {
          sampleRate: ANALYSIS_SAMPLE_RATE,
          channels: 1,
        })
      ).channels[0];
const rms = (x: Float32Array) => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / Math.max(1, x.length));
function withDrums(music: Float32Array): Float32Array {
  if (!drumStem || drumsDb === null) return music;
  const out = new Float32Array(music.length);
  const gain = (rms(music) / (rms(drumStem) || 1)) * 10 ** (drumsDb / 20);
  for (let i = 0; i < out.length; i++)
    out[i] = music[i]! + gain * drumStem[(i + 5 * ANALYSIS_SAMPLE_RATE) % drumStem.length]!;
  return out;
}
const setDir = values.set ?? '/tmp/realset';

interface Entry {
  name: string;
  file?: string;
  seconds: number;
  key: string | null;
}
const manifestPath = join(setDir, 'manifest.json');
const entries = (
  JSON.parse(
    readFileSync(
      existsSync(manifestPath) ? manifestPath : join(import.meta.dirname, 'fixtures', 'analyze-realset-labels.json'),
      'utf8',
    ),
  ) as Entry[]
)
  .filter((e) => e.key)
  .map((e) => ({ ...e, path: join(setDir, e.file ?? `clips/${e.name}.wav`) }))
  .filter((e) => existsSync(e.path));

const pieces = [...new Set(entries.map((e) => e.name.replace(/-2s$/, '')))].sort();
const half = (name: string) => (pieces.indexOf(name.replace(/-2s$/, '')) % 2 === 0 ? 'A' : 'B');

const fronts: Record<string, ChromaVariant> = {
  'all peaks (before)': { peakContrast: 0 },
  shipped: {},
  'all peaks +log weight': { peakContrast: 0, weight: 'log' },
  'all peaks +whiten .5': { peakContrast: 0, whiten: 0.5 },
  'all peaks +harmonics 4': { peakContrast: 0, harmonics: 4 },
  'peak>2x local': { peakContrast: 2 },
  'peak>3x local': { peakContrast: 3 },
  'to 2 kHz': { maxHz: 2000 },
  'to 3 kHz': { maxHz: 3000 },
  'to 1.2 kHz': { maxHz: 1200 },
  'to 2 kHz +harm 3': { maxHz: 2000, harmonics: 3 },
  'peak>2x +harm 4': { peakContrast: 2, harmonics: 4 },
  'peak>2x +log': { peakContrast: 2, weight: 'log' },
  'peak>2x +whiten .5': { peakContrast: 2, whiten: 0.5 },
};
const profileSets: Record<string, KeyProfile[]> = {
  'KK+T+edma (shipped)': [KRUMHANSL, TEMPERLEY, EDMA],
  KK: [KRUMHANSL],
  Temperley: [TEMPERLEY],
  edma: [EDMA],
  AS: [ALBRECHT_SHANAHAN],
  BB: [BELLMAN_BUDGE],
  'KK+T+edma+AS': [KRUMHANSL, TEMPERLEY, EDMA, ALBRECHT_SHANAHAN],
  'T+edma+AS': [TEMPERLEY, EDMA, ALBRECHT_SHANAHAN],
  'all five': [KRUMHANSL, TEMPERLEY, EDMA, ALBRECHT_SHANAHAN, BELLMAN_BUDGE],
};
const bassWeights = [0, 0.5, 1];

interface Features {
  chroma: Float64Array;
  bass: Float64Array;
  /** The tonality gate's verdict (analyze-audio.ts): false leaves the key null, scoring 0. */
  tonal: boolean;
}
const features = new Map<string, Map<string, Features>>(); // front -> excerpt -> features
for (const f of Object.keys(fronts)) features.set(f, new Map());
for (const e of entries) {
  const samples = withDrums(
    (await decodeToPlanar(e.path, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 })).channels[0]!,
  );
  for (const [f, opts] of Object.entries(fronts)) {
    const acc = new ChromaAccumulator(ANALYSIS_SAMPLE_RATE, { shaping: chromaVariant(opts), bass: true });
    for (let i = 0; i < samples.length; i += 16_384) acc.push(samples.subarray(i, i + 16_384));
    const fine = acc.fineHistogram();
    const tuning = estimateTuning(fine);
    const tonality = Math.max(
      chromaContrast(foldChroma(fine, tuning)),
      acc.contrastTotal / Math.max(1, acc.frameCount) - FRAME_CONTRAST_OFFSET,
    );
    features.get(f)!.set(e.name, {
      chroma: foldChroma(fine, tuning),
      bass: foldChroma(acc.bassHistogram(), tuning),
      tonal: tonality >= MIN_TONALITY,
    });
  }
}

const norm = (x: Float64Array) => {
  const s = x.reduce((a, b) => a + b, 0) || 1;
  return x.map((v) => v / s);
};
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const only = values.only?.split(',');
const rows: { variant: string; a: number; b: number; all: number; short: number; long: number }[] = [];
for (const f of Object.keys(fronts)) {
  for (const [p, profiles] of Object.entries(profileSets)) {
    for (const w of bassWeights) {
      const variant = `${f} | ${p} | bass ${w}`;
      if (only && !only.includes(variant)) continue;
      const scored = entries.map((e) => {
        const ft = features.get(f)!.get(e.name)!;
        const c = norm(ft.chroma);
        const b = norm(ft.bass);
        const mixed = c.map((v, i) => v + w * b[i]!);
        const est = ft.tonal ? estimateKey(mixed, profiles) : null;
        return { e, s: mirexKeyScore(est?.name ?? null, e.key!), est: est?.name ?? null };
      });
      if (only) for (const x of scored) console.log(`  ${x.e.name.padEnd(36)} ${x.e.key!.padEnd(9)} ${x.est} ${x.s}`);
      rows.push({
        variant,
        a: mean(scored.filter((x) => half(x.e.name) === 'A').map((x) => x.s)),
        b: mean(scored.filter((x) => half(x.e.name) === 'B').map((x) => x.s)),
        all: mean(scored.map((x) => x.s)),
        short: mean(scored.filter((x) => x.e.seconds <= 2).map((x) => x.s)),
        long: mean(scored.filter((x) => x.e.seconds > 2).map((x) => x.s)),
      });
    }
  }
}
const gated = entries.filter((e) => !features.get('shipped')!.get(e.name)!.tonal).map((e) => e.name);
console.log(
  `tonality gate: ${gated.length} labelled excerpts get no key${gated.length ? ` (${gated.join(', ')})` : ''}`,
);
const nA = entries.filter((e) => half(e.name) === 'A').length;
console.log(`${entries.length} keyed excerpts (${nA} in half A, ${entries.length - nA} in B); MIREX weighted score`);
console.log(
  `${'variant'.padEnd(58)} ${'A'.padStart(6)} ${'B'.padStart(6)} ${'all'.padStart(6)} ${'30 s'.padStart(6)} ${'2 s'.padStart(6)}`,
);
for (const r of rows)
  console.log(
    `${r.variant.padEnd(58)} ${r.a.toFixed(3).padStart(6)} ${r.b.toFixed(3).padStart(6)} ${r.all.toFixed(3).padStart(6)} ${r.long.toFixed(3).padStart(6)} ${r.short.toFixed(3).padStart(6)}`,
  );
