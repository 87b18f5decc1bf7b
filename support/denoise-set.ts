import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from './shared.ts';
import { mixAtSnr, readMono, writeWav } from './denoise-mixes.ts';

/*
 * The voice-cleaning evaluation set: speech users send (narrowband 16 kHz calls and voice notes,
 * full-band 44.1/48 kHz recordings; short 1.4-3 s and long 6-8 s) mixed with four real noises at
 * 0/5/10/15 dB whole-signal SNR, plus the clean speech itself, each file at its own sample rate.
 * Every utterance is cut to start 0.1 s before its first speech so that "the first second" always
 * holds the first words.
 */

export interface SpeechItem {
  name: string;
  band: 'NB' | 'FB';
  rate: number;
  length: 'short' | 'long';
  path: string;
  maxSeconds?: number;
}

export interface EvalCase {
  name: string;
  item: SpeechItem;
  noise: string;
  snr: number | null;
  rate: number;
  noisyPath: string;
  noisy: Float32Array;
  clean: Float32Array;
}

const ALSA_WORD = '/usr/share/sounds/alsa/Front_Center.wav';

export function speechItems(): SpeechItem[] {
  const items: SpeechItem[] = [
    {
      name: 'nb-pesq',
      band: 'NB',
      rate: 16_000,
      length: 'short',
      path: sharedPath('audio', 'denoise-dev', 'speech_16k.wav'),
    },
    {
      name: 'nb-libri',
      band: 'NB',
      rate: 16_000,
      length: 'long',
      path: sharedPath('audio', 'speech', '198-209-0000.hq.ogg'),
      maxSeconds: 8,
    },
    {
      name: 'fb44-anechoic',
      band: 'FB',
      rate: 44_100,
      length: 'long',
      path: sharedPath('audio', 'denoise-dev', 'clean_anechoic_44k.wav'),
    },
    {
      name: 'fb48-short',
      band: 'FB',
      rate: 48_000,
      length: 'short',
      path: sharedPath('audio', 'denoise', 'clean_freesound_33711.wav'),
      maxSeconds: 2.5,
    },
  ];
  // alsa-utils' spoken words (48 kHz, ~1.4 s), when the Debian package is installed.
  if (existsSync(ALSA_WORD)) {
    items.push({ name: 'fb48-word', band: 'FB', rate: 48_000, length: 'short', path: ALSA_WORD });
  }
  return items;
}

/**
 * Held-out speech, never used while the guards were set: the two LibriSpeech utterances of
 * ../shared/audio/speech that the evaluation set leaves out, each cut to 2 and 3 s from its first
 * word (the short utterances where a cleaner has least time to settle).
 */
export function heldOutItems(): SpeechItem[] {
  const items: SpeechItem[] = [];
  for (const id of ['3436-172162-0000', '5703-47212-0000'])
    for (const seconds of [2, 3])
      items.push({
        name: `held-${id.split('-')[0]}-${seconds}s`,
        band: 'NB',
        rate: 16_000,
        length: 'short',
        path: sharedPath('audio', 'speech', `${id}.hq.ogg`),
        maxSeconds: seconds,
      });
  return items;
}

/**
 * More held-out voices, of many speakers and languages: the native speakers of KLettres (Debian's
 * klettres-data, GPL-2+: letters, syllables and words spoken in 20-odd languages, 44.1 kHz). Per
 * language, its first recordings (syllables where there are any, else letters), each trimmed of
 * silence, are joined with 0.15 s pauses into one utterance, cut to 2 and 3 s from its first word.
 * Fetched with `apt-get download` (no root needed) into `dir` on first use. These are old home
 * recordings: the reference is high-passed at 35 Hz like the cleaner's output (two of them carry a
 * DC offset of 25-40 % of their RMS, one 6 % of its energy below 35 Hz, none of it speech), and a
 * voice whose 3 s clip (more than 10 samples at full scale) is left out, since clipping is
 * distortion in the reference itself. Both checks read the recordings, never the cleaner's output.
 */
export function voiceItems(dir: string): SpeechItem[] {
  const root = join(dir, 'x', 'usr', 'share', 'klettres');
  if (!existsSync(root)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('apt-get', ['download', 'klettres-data'], { cwd: dir, stdio: 'ignore' });
    const deb = readdirSync(dir).find((f) => f.startsWith('klettres-data_') && f.endsWith('.deb'))!;
    execFileSync('dpkg-deb', ['-x', join(dir, deb), join(dir, 'x')]);
  }
  const items: SpeechItem[] = [];
  for (const lang of readdirSync(root).sort()) {
    const folder = ['syllab', 'alpha'].map((f) => join(root, lang, f)).find((f) => existsSync(f));
    if (!folder) continue;
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.ogg'))
      .sort()
      .slice(0, 8);
    if (files.length < 4) continue;
    const out = join(dir, `${lang}.wav`);
    if (!existsSync(out)) {
      const trim =
        'silenceremove=start_periods=1:start_threshold=-45dB,areverse,silenceremove=start_periods=1:start_threshold=-45dB,areverse';
      const chains = files.map(
        (_, i) => `[${i}:a]aformat=channel_layouts=mono,aresample=44100,${trim},apad=pad_dur=0.15[s${i}]`,
      );
      const graph = `${chains.join(';')};${files.map((_, i) => `[s${i}]`).join('')}concat=n=${files.length}:v=0:a=1[out]`;
      execFileSync('ffmpeg', [
        ...['-nostdin', '-v', 'error', '-y'],
        ...files.flatMap((f) => ['-i', join(folder, f)]),
        ...['-filter_complex', `${graph};[out]highpass=f=35,highpass=f=35[hp]`, '-map', '[hp]', '-ar', '44100'],
        ...['-c:a', 'pcm_f32le', out],
      ]);
    }
    if (!usable(out)) continue;
    for (const seconds of [2, 3])
      items.push({
        name: `voice-${lang}-${seconds}s`,
        band: 'FB',
        rate: 44_100,
        length: 'short',
        path: out,
        maxSeconds: seconds,
      });
  }
  return items;
}

/** At least 3 s of sound after trimming, and no clipping in its first 3 s. */
function usable(path: string): boolean {
  const pcm = execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-i', path, '-t', '3', '-f', 'f32le', '-']);
  const x = new Float32Array(pcm.buffer, pcm.byteOffset, pcm.length >> 2);
  let clipped = 0;
  for (const v of x) if (Math.abs(v) >= 0.99) clipped++;
  return x.length >= 3 * 44_100 && clipped <= 10;
}

/** Drops the silence before the first speech, keeping 0.1 s of it. */
export function fromOnset(x: Float32Array, rate: number): Float32Array {
  const f = Math.round(rate / 100);
  let max = 0;
  const e: number[] = [];
  for (let i = 0; i + f <= x.length; i += f) {
    let s = 0;
    for (let j = i; j < i + f; j++) s += x[j]! * x[j]!;
    e.push(s);
    max = Math.max(max, s);
  }
  const first = e.findIndex((v) => v > max * 1e-3);
  return x.subarray(Math.max(0, first * f - Math.round(rate / 10)));
}

/**
 * A noise recording without its fade-in and fade-out: the leading and trailing half seconds more
 * than 6 dB below the recording's median half-second level are dropped. Mixed from its first
 * sample, the fan recording (which fades in over about a second) left the first second of every
 * fan mix at 17-34 dB SNR whatever the stated SNR, so "the first second" measured near-clean
 * speech there, not speech in fan noise.
 */
export function steadyPart(noise: Float32Array, rate: number): Float32Array {
  const block = Math.round(rate / 2);
  const levels: number[] = [];
  for (let o = 0; o + block <= noise.length; o += block) {
    let e = 0;
    for (let i = o; i < o + block; i++) e += noise[i]! * noise[i]!;
    levels.push(e / block);
  }
  if (levels.length < 3) return noise;
  const median = [...levels].sort((a, b) => a - b)[levels.length >> 1]!;
  const steady = (e: number) => e >= median / 4;
  const first = levels.findIndex(steady);
  const last = levels.findLastIndex(steady);
  return noise.subarray(first * block, (last + 1) * block);
}

export async function noiseAt(name: string, rate: number, work: string): Promise<Float32Array> {
  switch (name) {
    case 'babble': {
      // The PESQ test set's babble: the 0 dB mix minus its speech (16 kHz, 3.1 s, looped).
      const dev = (f: string) => sharedPath('audio', 'denoise-dev', f);
      const mix = await readMono(dev('speech_16k_babble_0dB.wav'), 16_000);
      const sp = await readMono(dev('speech_16k.wav'), 16_000);
      const b = mix.map((v, i) => v - (sp[i] ?? 0));
      if (rate === 16_000) return b;
      const p = join(work, 'babble16.wav');
      await writeWav(p, b, 16_000);
      return readMono(p, rate);
    }
    case 'fan':
      return readMono(sharedPath('audio', 'denoise-dev', 'noise_fan_44k.wav'), rate);
    case 'street':
      return readMono(sharedPath('audio', 'denoise', 'noise_freesound_573577.wav'), rate);
    case 'music': {
      const p = join(work, `music-${rate}.wav`);
      const src = sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg');
      execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-ss', '30', '-t', '20', '-i', src, '-ac', '1', p]);
      return readMono(p, rate);
    }
    default:
      throw new Error(`unknown noise ${name}`);
  }
}

export const NOISES = ['babble', 'fan', 'street', 'music'] as const;
export const SNRS = [0, 5, 10, 15];

/** Builds every case (noisy files written as 16-bit WAV at the item's rate) into `work`. */
export async function buildEvalSet(work: string, items = speechItems()): Promise<EvalCase[]> {
  const cases: EvalCase[] = [];
  for (const item of items) {
    let clean = fromOnset(await readMono(item.path, item.rate), item.rate);
    if (item.maxSeconds) clean = clean.slice(0, Math.round(item.maxSeconds * item.rate));
    // 16-bit files: round the reference the same way the mix is, so clean passes compare exactly.
    const cleanPath = join(work, `${item.name}.clean.wav`);
    const peak = clean.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    clean = clean.map((v) => (v * 0.9) / peak);
    await writeWav(cleanPath, clean, item.rate);
    cases.push({
      name: `${item.name} clean`,
      item,
      noise: 'clean',
      snr: null,
      rate: item.rate,
      noisyPath: cleanPath,
      noisy: await readMono(cleanPath, item.rate),
      clean,
    });
    for (const noise of NOISES) {
      const n = steadyPart(await noiseAt(noise, item.rate, work), item.rate);
      for (const snr of SNRS) {
        const { mix, reference } = mixAtSnr(clean, n, snr);
        const noisyPath = join(work, `${item.name}.${noise}.${snr}.wav`);
        await writeWav(noisyPath, mix, item.rate);
        cases.push({
          name: `${item.name} ${noise} ${snr}`,
          item,
          noise,
          snr,
          rate: item.rate,
          noisyPath,
          noisy: mix,
          clean: reference,
        });
      }
    }
  }
  return cases;
}
