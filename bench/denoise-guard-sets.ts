import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { buildEverydaySet, EVERYDAY_NOISES, everydayNoise } from './denoise-everyday.ts';
import { mixAtSnr, readMono } from '../support/denoise-mixes.ts';
import {
  buildEvalSet,
  type EvalCase,
  heldOutItems,
  type SpeechItem,
  speechItems,
  voiceItems,
} from '../support/denoise-set.ts';

/*
 * The sets the held-voice guard is measured on (bench/denoise-guard.ts), built into `dir`; Debian
 * packages (klettres-data, Asterisk prompts, openttd-opensfx) are fetched there once.
 */
export const GUARD_SETS = ['eval', 'held-out', 'voices', 'slowed', 'everyday-tune', 'everyday-report', 'singing'];

/** KLettres voices that pass at their own pace, slowed to 0.6 times at the same pitch (WSOLA). */
function slowedItems(dir: string): SpeechItem[] {
  const voices = join(dir, 'klettres');
  voiceItems(voices);
  return ['de', 'en', 'it', 'es'].map((lang) => {
    const path = join(voices, `slow-${lang}.wav`);
    if (!existsSync(path))
      execFileSync('ffmpeg', [
        ...['-nostdin', '-v', 'error', '-y', '-i', join(voices, `${lang}.wav`)],
        ...['-af', 'atempo=0.6', '-c:a', 'pcm_f32le', path],
      ]);
    return { name: `slow-${lang}`, band: 'FB', rate: 44_100, length: 'short', path, maxSeconds: 3 };
  });
}

/** The musdb vocal stem (48 kHz): alone, under its song's bleed, and over the everyday noises. */
async function singingCases(dir: string): Promise<EvalCase[]> {
  const stem = (name: string) => readMono(sharedPath('audio', 'musdb-falcon69', `${name}.wav`), 48_000);
  const vocals = await stem('vocals');
  const rest = new Float32Array(vocals.length);
  for (const name of ['other', 'bass', 'drums']) {
    const x = await stem(name);
    for (let i = 0; i < rest.length; i++) rest[i]! += x[i] ?? 0;
  }
  const item: SpeechItem = { name: 'vocals', band: 'FB', rate: 48_000, length: 'long', path: '' };
  const make = (noise: string, snr: number | null, mix: Float32Array, clean: Float32Array): EvalCase => ({
    name: `vocals ${noise} ${snr ?? ''}`,
    item,
    noise,
    snr,
    rate: 48_000,
    noisyPath: '',
    noisy: mix,
    clean,
  });
  const cases = [make('clean', null, vocals, vocals)];
  for (const below of [20, 15, 10]) {
    const { mix, reference } = mixAtSnr(vocals, rest, below);
    cases.push(make('bleed', below, mix, reference));
  }
  for (const noise of EVERYDAY_NOISES) {
    const n = await everydayNoise(noise, join(dir, 'everyday'), 48_000);
    for (const snr of [5, 10]) {
      const { mix, reference } = mixAtSnr(vocals, n, snr);
      cases.push(make(noise, snr, mix, reference));
    }
  }
  return cases;
}

/** The noisy (and clean) cases of one of GUARD_SETS. */
export async function buildGuardSet(set: string, dir: string): Promise<EvalCase[]> {
  const work = join(dir, `set-${set}`);
  mkdirSync(work, { recursive: true });
  switch (set) {
    case 'eval':
      return buildEvalSet(work, speechItems());
    case 'held-out':
      return buildEvalSet(work, heldOutItems());
    case 'voices':
      return buildEvalSet(work, voiceItems(join(dir, 'klettres')));
    case 'slowed':
      return buildEvalSet(work, slowedItems(dir));
    case 'everyday-tune':
      return (await buildEverydaySet(join(dir, 'everyday'))).tune;
    case 'everyday-report':
      return (await buildEverydaySet(join(dir, 'everyday'))).report;
    case 'singing':
      return singingCases(dir);
    default:
      throw new Error(`unknown set ${set}`);
  }
}
