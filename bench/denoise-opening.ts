/**
 * The opening of each file: ours in process (48 kHz, resampled back to the file's rate), per file,
 * whole-file and first-second SI-SDR gains for the variants given, on the evaluation set; files
 * where a variant loses anything are listed (all with --all). Quicker than bench/denoise.ts (no
 * ffmpeg round trip, no other systems): a development tool for the start-up and the guards.
 *
 *   node bin/run-ts.mjs bench/denoise-opening.ts [--variants default,noguard] [--all] [--held-out] [--voices DIR]
 * --held-out: the held-out short utterances (heldOutItems) instead of the evaluation set's speech;
 * --voices DIR: KLettres' native speakers of 20-odd languages (voiceItems, fetched into DIR);
 * --wavs A.wav,B.wav: these 44.1 kHz speech files instead, each cut to 3 s from its first word;
 * --only TEXT: only the speech items whose name holds TEXT.
 * Variants and peers: bench/denoise-variants.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { parseArgs } from 'node:util';
import { siSdr } from '../support/si-sdr.ts';
import { readMono, resampleSinc } from '../support/denoise-mixes.ts';
import { buildEvalSet, heldOutItems, speechItems, voiceItems } from '../support/denoise-set.ts';
import { loadVariant } from './denoise-variants.ts';

const { values } = parseArgs({
  options: {
    variants: { type: 'string', default: 'default' },
    all: { type: 'boolean', default: false },
    'held-out': { type: 'boolean', default: false },
    voices: { type: 'string' },
    only: { type: 'string' },
    wavs: { type: 'string' },
  },
});
const names = values.variants.split(',');
const work = mkdtempSync(join(tmpdir(), 'stemforge-opening-'));
const fmt = (x: number) => x.toFixed(2).padStart(7);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
try {
  const items = (
    values.wavs
      ? values.wavs.split(',').map((path) => ({
          name: basename(path, '.wav'),
          band: 'FB' as const,
          rate: 44_100,
          length: 'short' as const,
          path,
          maxSeconds: 3,
        }))
      : values.voices
        ? voiceItems(values.voices)
        : values['held-out']
          ? heldOutItems()
          : speechItems()
  ).filter((item) => !values.only || item.name.includes(values.only));
  const cases = await buildEvalSet(work, items);
  const inputs = await Promise.all(cases.map((c) => readMono(c.noisyPath, 48_000)));
  const res: Record<string, { whole: number; first: number }[]> = {};
  for (const v of names) {
    const system = await loadVariant(v);
    res[v] = [];
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i]!;
      const y = resampleSinc(await system.run(inputs[i]!), 48_000, c.rate);
      const r = c.rate;
      res[v]!.push({
        whole: siSdr(c.clean, y) - (c.snr === null ? 0 : siSdr(c.clean, c.noisy)),
        first:
          siSdr(c.clean.subarray(0, r), y.subarray(0, r)) -
          (c.snr === null ? 0 : siSdr(c.clean.subarray(0, r), c.noisy.subarray(0, r))),
      });
    }
    await system.close();
  }
  console.log(
    `file                          input1s | ${names.map((n) => `${n} whole/1st (groups: mean whole, mean 1st, worst whole)`).join(' | ')}`,
  );
  cases.forEach((c, i) => {
    const show = values.all || c.snr === null || names.some((n) => res[n]![i]!.first < 0 || res[n]![i]!.whole < 0);
    if (!show) return;
    const in1 = c.snr === null ? 0 : siSdr(c.clean.subarray(0, c.rate), c.noisy.subarray(0, c.rate));
    console.log(
      `${c.name.padEnd(28)} ${fmt(in1)} | ${names.map((n) => `${fmt(res[n]![i]!.whole)} ${fmt(res[n]![i]!.first)}`).join(' | ')}`,
    );
  });
  const groups: [string, (i: number) => boolean][] = [
    ['NB 0-5', (i) => cases[i]!.item.band === 'NB' && cases[i]!.snr !== null && cases[i]!.snr! <= 5],
    ['NB 10-15', (i) => cases[i]!.item.band === 'NB' && cases[i]!.snr !== null && cases[i]!.snr! >= 10],
    ['FB 0-5', (i) => cases[i]!.item.band === 'FB' && cases[i]!.snr !== null && cases[i]!.snr! <= 5],
    ['FB 10-15', (i) => cases[i]!.item.band === 'FB' && cases[i]!.snr !== null && cases[i]!.snr! >= 10],
    ['0 dB', (i) => cases[i]!.snr === 0],
    ['5-10 dB', (i) => cases[i]!.snr === 5 || cases[i]!.snr === 10],
    ['15 dB', (i) => cases[i]!.snr === 15],
    ...['babble', 'fan', 'street', 'music'].map(
      (n) => [n, (i: number) => cases[i]!.noise === n] as [string, (i: number) => boolean],
    ),
  ];
  for (const [g, pred] of groups) {
    const idx = cases.map((_, i) => i).filter(pred);
    if (idx.length === 0) continue;
    console.log(
      `${g.padEnd(10)} ${names.map((n) => `${fmt(mean(idx.map((i) => res[n]![i]!.whole)))} ${fmt(mean(idx.map((i) => res[n]![i]!.first)))} worst ${fmt(Math.min(...idx.map((i) => res[n]![i]!.whole)))}`).join(' | ')}`,
    );
  }
  const noisy = cases.map((_, i) => i).filter((i) => cases[i]!.snr !== null);
  console.log(
    `worse>0.5  ${names.map((n) => `${String(noisy.filter((i) => res[n]![i]!.whole < -0.5).length).padStart(7)} ${String(noisy.filter((i) => res[n]![i]!.first < -0.5).length).padStart(7)}`).join(' | ')}`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
