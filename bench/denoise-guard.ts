/**
 * The held-voice guard on every set it must hold on: per set, mean SI-SDR gain over the input and
 * the worst file for each variant (default: the product, and `noheld`, the same without the
 * held-voice guard), the guard's mean cost against the base variant and its worst single-file cost,
 * and how many 2-3 s utterances at moderate SNR (5-10 dB) end more than 0.5 dB worse than their
 * input. Ours in process (48 kHz in, resampled back to each file's rate), as denoise-opening.ts.
 *
 *   node bin/run-ts.mjs bench/denoise-guard.ts [--sets eval,held-out,voices,slowed,everyday-tune,everyday-report,singing]
 *     [--variants default,noheld] [--base noheld] [--dir /var/tmp/stemforge-guard] [--per-file]
 *
 * Sets: `eval` the evaluation set (denoise-set.ts), `held-out` its held-out LibriSpeech utterances,
 * `voices` KLettres' 11 usable voices (voiceItems), `slowed` four of them slowed to 0.6 times at the
 * same pitch (held vowels in any voice), `everyday-tune` / `everyday-report` the VoiceBank-DEMAND-like
 * set (denoise-everyday.ts: the guard's rule was chosen on the first part only), `singing` the musdb
 * vocal stem alone, with its song's bleed 20/15/10 dB below and over the everyday noises at 5/10 dB.
 * Debian packages (klettres-data, Asterisk prompts, openttd-opensfx) are fetched into --dir once.
 */
import { cpus } from 'node:os';
import { parseArgs } from 'node:util';
import { siSdr } from '../support/si-sdr.ts';
import { buildGuardSet, GUARD_SETS } from './denoise-guard-sets.ts';
import { readMono, resampleSinc } from '../support/denoise-mixes.ts';
import { loadVariant } from './denoise-variants.ts';

const { values } = parseArgs({
  options: {
    sets: { type: 'string', default: GUARD_SETS.join(',') },
    variants: { type: 'string', default: 'default,noheld' },
    base: { type: 'string', default: 'noheld' },
    dir: { type: 'string', default: '/var/tmp/stemforge-guard' },
    'per-file': { type: 'boolean', default: false },
  },
});
const dir = values.dir;
const names = values.variants.split(',');
const fmt = (x: number) => x.toFixed(2).padStart(7);
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

console.log(`${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores; variants ${names.join(', ')}`);
const systems = await Promise.all(names.map(async (n) => ({ name: n, system: await loadVariant(n) })));
for (const set of values.sets.split(',')) {
  const cases = await buildGuardSet(set, dir);
  const gains: Record<string, number[]> = {};
  for (const { name, system } of systems) {
    gains[name] = [];
    for (const c of cases) {
      const x = c.noisyPath ? await readMono(c.noisyPath, 48_000) : c.noisy;
      const y = resampleSinc(await system.run(x), 48_000, c.rate);
      gains[name].push(siSdr(c.clean, y) - (c.snr === null ? 0 : siSdr(c.clean, c.noisy)));
    }
  }
  const noisy = cases.map((_, i) => i).filter((i) => cases[i]!.snr !== null);
  const clean = cases.map((_, i) => i).filter((i) => cases[i]!.snr === null);
  const moderate = noisy.filter((i) => {
    const c = cases[i]!;
    const seconds = c.clean.length / c.rate;
    return (c.snr === 5 || c.snr === 10) && seconds >= 1.9 && seconds <= 3.1;
  });
  console.log(
    `\n## ${set}: ${noisy.length} noisy files (${moderate.length} of 2-3 s at 5-10 dB), ${clean.length} clean`,
  );
  if (values['per-file'])
    for (const i of noisy)
      console.log(`${cases[i]!.name.padEnd(44)} ${names.map((n) => fmt(gains[n]![i]!)).join(' ')}`);
  const base = gains[values.base];
  for (const n of names) {
    const g = gains[n]!;
    const worst = noisy.reduce((w, i) => (g[i]! < g[w]! ? i : w), noisy[0]!);
    const costs = base && n !== values.base ? noisy.map((i) => base[i]! - g[i]!) : [];
    console.log(
      `${n.padEnd(10)} mean gain ${fmt(mean(noisy.map((i) => g[i]!)))} | worst ${fmt(g[worst]!)} (${cases[worst]!.name})` +
        ` | 2-3 s at 5-10 dB worse by > 0.5: ${moderate.filter((i) => g[i]! < -0.5).length}` +
        (moderate.length ? ` (worst ${fmt(Math.min(...moderate.map((i) => g[i]!)))})` : '') +
        (clean.length ? ` | clean passthrough ${fmt(mean(clean.map((i) => g[i]!)))}` : '') +
        (costs.length
          ? ` | cost vs ${values.base}: mean ${fmt(mean(costs))}, worst file ${fmt(Math.max(...costs))}`
          : ''),
    );
  }
}
for (const { system } of systems) await system.close();
