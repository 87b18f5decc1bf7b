import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { mixAtSnr, readMono, writeWav } from '../support/denoise-mixes.ts';
import { type EvalCase, fromOnset, noiseAt, type SpeechItem, steadyPart } from '../support/denoise-set.ts';

/*
 * The everyday set, built like VoiceBank-DEMAND's test set (16 kHz read sentences of a few seconds,
 * each mixed with one everyday noise at one SNR) from what this machine has: sentences of four
 * speakers from Debian's Asterisk prompts (G.722, 16 kHz: US English and Mexican Spanish by one
 * speaker, Canadian French by another), the three LibriSpeech utterances of ../shared cut into
 * sentence-length pieces, and ../shared's other clean recordings; noises: ../shared's babble, fan
 * and street, and four recordings from Debian's openttd-opensfx (CC BY 3.0 / CC0, freesound
 * originals): applause of a crowd, wind, a bus pulling away, machinery (a lift). Every utterance
 * meets every noise once, at 0, 5, 10 or 15 dB in turn, from a different point of the noise.
 *
 * It is split by speaker: `tune` (Asterisk's English and Spanish speaker, LibriSpeech 198, the
 * freesound recording) is what the held-voice guard's rule was chosen on; `report` (Asterisk's
 * French speaker, LibriSpeech 3436 and 5703, the PESQ and Clarity recordings) was only measured.
 */

export const EVERYDAY_RATE = 16_000;
export const EVERYDAY_NOISES = ['babble', 'fan', 'street', 'crowd', 'wind', 'bus', 'machinery'] as const;
const SNRS = [0, 5, 10, 15];
const PACKAGES = ['asterisk-core-sounds-en-g722', 'asterisk-core-sounds-es-g722', 'asterisk-core-sounds-fr-g722'];
const SFX_PACKAGE = 'openttd-opensfx';
/** Entries of opensfx.cat (its index order) used as noise. */
const SFX: Record<string, number> = { crowd: 29, wind: 52, bus: 27, machinery: 11 };

/** Asterisk prompts: 2-3 s sentences, and a few of 4-7 s. */
const PROMPTS: Record<string, { folder: string; files: string[] }> = {
  'ast-en': {
    folder: 'en_US_f_Allison',
    files: ['vm-tocancel', 'vm-toreply', 'transfer', 'conf-invalidpin', 'vm-savefolder', 'dir-firstlast'],
  },
  'ast-enlong': { folder: 'en_US_f_Allison', files: ['priv-callpending', 'vm-tmpexists', 'vm-newuser'] },
  'ast-es': { folder: 'es_MX_f_Allison', files: ['queue-thankyou', 'vm-star-cancel', 'conf-otherinparty'] },
  'ast-eslong': { folder: 'es_MX_f_Allison', files: ['conf-invalid'] },
  'ast-fr': {
    folder: 'fr_CA_f_June',
    files: [
      'confbridge-conf-begin',
      'vm-nonumber',
      'conf-now-muted',
      'demo-nomatch',
      'vm-savefolder',
      'confbridge-begin-glorious-b',
    ],
  },
  'ast-frlong': { folder: 'fr_CA_f_June', files: ['confbridge-pin', 'auth-incorrect', 'vm-review'] },
};

/** LibriSpeech pieces: [utterance, start s, length s]. */
const LIBRI: [string, number, number][] = [
  ['198-209-0000', 0, 2.5],
  ['198-209-0000', 3, 3],
  ['198-209-0000', 6.5, 2],
  ['198-209-0000', 9, 6],
  ['3436-172162-0000', 0, 3],
  ['3436-172162-0000', 3.5, 2.5],
  ['3436-172162-0000', 6, 6],
  ['5703-47212-0000', 0, 2],
  ['5703-47212-0000', 2.5, 3],
  ['5703-47212-0000', 6, 6],
];

const TUNE = /^(ast-en|ast-es|libri-198|fb48-short)/;

/** Fetches a Debian package into `dir` (apt-get download, no root needed) and unpacks it there. */
function unpack(dir: string, pkg: string): string {
  const root = join(dir, 'x');
  const stamp = join(dir, `${pkg}.unpacked`);
  if (!existsSync(stamp)) {
    mkdirSync(dir, { recursive: true });
    execFileSync('apt-get', ['download', pkg], { cwd: dir, stdio: 'ignore' });
    const deb = readdirSync(dir).find((f) => f.startsWith(`${pkg}_`) && f.endsWith('.deb'))!;
    execFileSync('dpkg-deb', ['-x', join(dir, deb), root]);
    writeFileSync(stamp, '');
  }
  return root;
}

/** One entry of an OpenTTD sound catalogue (.cat: offset/size pairs, then a name and a RIFF WAVE each). */
function catEntry(cat: Buffer, index: number): Buffer {
  const offset = cat.readUInt32LE(8 * index) & 0x7fffffff;
  const size = cat.readUInt32LE(8 * index + 4);
  const nameLength = cat[offset]!;
  return cat.subarray(offset + 1 + nameLength, offset + size);
}

function trimTo(path: string, out: string, start: number, seconds: number): string {
  if (!existsSync(out))
    execFileSync('ffmpeg', [
      ...['-nostdin', '-v', 'error', '-y', '-ss', String(start), '-t', String(seconds), '-i', path],
      ...['-ac', '1', '-ar', String(EVERYDAY_RATE), '-c:a', 'pcm_f32le', out],
    ]);
  return out;
}

/** The set's utterances (16 kHz files written into `dir`). */
export function everydayItems(dir: string): SpeechItem[] {
  const item = (name: string, path: string): SpeechItem => ({
    name,
    band: 'NB',
    rate: EVERYDAY_RATE,
    length: name.includes('long') ? 'long' : 'short',
    path,
  });
  const items: SpeechItem[] = [];
  let root = '';
  for (const pkg of PACKAGES) root = unpack(dir, pkg);
  for (const [group, { folder, files }] of Object.entries(PROMPTS))
    for (const f of files) {
      const src = join(root, 'usr', 'share', 'asterisk', 'sounds', folder, `${f}.g722`);
      items.push(item(`${group}-${f}`, trimTo(src, join(dir, `${group}-${f}.wav`), 0, 10)));
    }
  for (const [id, start, seconds] of LIBRI) {
    const name = `libri-${id.split('-')[0]}-${start}s${seconds > 3 ? '-long' : ''}`;
    const src = sharedPath('audio', 'speech', `${id}.hq.ogg`);
    items.push(item(name, trimTo(src, join(dir, `${name}.wav`), start, seconds)));
  }
  items.push(item('nb-pesq', sharedPath('audio', 'denoise-dev', 'speech_16k.wav')));
  items.push(item('fb44-anechoic-long', sharedPath('audio', 'denoise-dev', 'clean_anechoic_44k.wav')));
  items.push({ ...item('fb48-short', sharedPath('audio', 'denoise', 'clean_freesound_33711.wav')), maxSeconds: 2.5 });
  return items;
}

/** One of EVERYDAY_NOISES at `rate`, without its fades (steadyPart). */
export async function everydayNoise(name: string, dir: string, rate = EVERYDAY_RATE): Promise<Float32Array> {
  return steadyPart(await noise(name, dir, rate), rate);
}

async function noise(name: string, dir: string, rate: number): Promise<Float32Array> {
  const entry = SFX[name];
  if (entry === undefined) return noiseAt(name, rate, dir);
  const path = join(dir, `sfx-${name}.wav`);
  if (!existsSync(path)) {
    const cat = join(unpack(dir, SFX_PACKAGE), 'usr', 'share', 'games', 'openttd', 'baseset', 'opensfx', 'opensfx.cat');
    writeFileSync(path, catEntry(readFileSync(cat), entry));
  }
  return readMono(path, rate);
}

/** Builds the set into `dir` (Debian packages fetched there on first use): its tuning and its reporting part. */
export async function buildEverydaySet(dir: string): Promise<{ tune: EvalCase[]; report: EvalCase[] }> {
  const noises = new Map<string, Float32Array>();
  for (const n of EVERYDAY_NOISES) noises.set(n, await everydayNoise(n, dir));
  const tune: EvalCase[] = [];
  const report: EvalCase[] = [];
  const items = everydayItems(dir);
  for (const [u, item] of items.entries()) {
    let clean = fromOnset(await readMono(item.path, EVERYDAY_RATE), EVERYDAY_RATE);
    if (item.maxSeconds) clean = clean.slice(0, Math.round(item.maxSeconds * EVERYDAY_RATE));
    const peak = clean.reduce((m, v) => Math.max(m, Math.abs(v)), 0);
    clean = clean.map((v) => (v * 0.9) / peak);
    for (const [k, name] of EVERYDAY_NOISES.entries()) {
      const n = noises.get(name)!;
      // A different stretch of the noise for each utterance (a fixed stride, no random draw).
      const from = Math.floor(((u * 7 + k * 3) % 11) * 0.09 * n.length);
      const rotated = new Float32Array(n.length);
      rotated.set(n.subarray(from));
      rotated.set(n.subarray(0, from), n.length - from);
      const snr = SNRS[(u + k) % SNRS.length]!;
      const { mix, reference } = mixAtSnr(clean, rotated, snr);
      const noisyPath = join(dir, `mix-${item.name}.${name}.${snr}.wav`);
      await writeWav(noisyPath, mix, EVERYDAY_RATE);
      const c: EvalCase = {
        name: `${item.name} ${name} ${snr}`,
        item,
        noise: name,
        snr,
        rate: EVERYDAY_RATE,
        noisyPath,
        noisy: mix,
        clean: reference,
      };
      (TUNE.test(item.name) ? tune : report).push(c);
    }
  }
  return { tune, report };
}
