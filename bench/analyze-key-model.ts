/**
 * The learned key model (src/analysis/key-model.ts) beside the profile method on real music it never
 * trained on (bench only):
 *   node bin/run-ts.mjs bench/analyze-key-model.ts --set DIR [--model PATH] [--mp3] [--list]
 * DIR is what `python3 bench/analyze-realset.py DIR` built. Every keyed excerpt (27 of 30 s, 27 of
 * 2 s) is scored clean and with the musdb drum stem (looped) mixed in at 0 and +6 dB over the
 * music's RMS (drums-heavy mixes), by mir_eval.key.weighted_score. Columns:
 *   profile  the chroma and Krumhansl-Schmuckler method with its tonality gate (the product before);
 *   model    the learned model alone, always a key;
 *   product  what analyzeAudioDetailed reports (key-reading.ts: the profile's key above the gate,
 *            the model's below it when confident). All three from one reading of the file.
 * --mp3 also encodes every clean excerpt to MP3 (128 kb/s) and counts the excerpts whose product key
 * differs between the WAV and the MP3. The model's winning probability is printed for exact, close
 * (fifth, relative, parallel) and wrong keys, and for inputs with no key (noise, drums alone).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { sharedPath } from '../support/shared.ts';
import { mirEvalKeyScore } from '../support/analyze-metrics.ts';
import { SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';

const { values } = parseArgs({
  options: {
    set: { type: 'string' },
    model: { type: 'string' },
    mp3: { type: 'boolean' },
    list: { type: 'boolean' },
  },
});
const setDir = values.set ?? '/tmp/realset';
const entries = (
  JSON.parse(readFileSync(join(setDir, 'manifest.json'), 'utf8')) as {
    name: string;
    file: string;
    key: string | null;
    seconds: number;
  }[]
).filter((e) => e.key);
const work = mkdtempSync(join(tmpdir(), 'stemforge-key-model-'));
// Mixed and written at the synthesiser's rate; every reading decodes the written file as a job would.
const mono = async (path: string) => (await decodeToPlanar(path, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
const drums = await mono(sharedPath('audio', 'musdb-falcon69', 'drums.wav'));
const rms = (x: Float32Array) => Math.sqrt(x.reduce((a, v) => a + v * v, 0) / Math.max(1, x.length));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);
const withDrums = (music: Float32Array, db: number) => {
  const gain = (rms(music) / rms(drums)) * 10 ** (db / 20);
  return music.map((v, i) => v + gain * drums[(i + 5 * SYNTH_RATE) % drums.length]!);
};

interface Row {
  name: string;
  short: boolean;
  profile: number;
  model: number;
  product: number;
  probability: number;
}
const confidences: { exact: number[]; close: number[]; wrong: number[] } = { exact: [], close: [], wrong: [] };
let mp3Differs = 0;
let mp3Count = 0;

console.log(`machine: ${cpuModel()}; model: ${values.model ?? 'shipped'}`);
for (const db of [null, 0, 6]) {
  const rows: Row[] = [];
  for (const e of entries) {
    const clean = await mono(join(setDir, e.file));
    const samples = db === null ? clean : withDrums(clean, db);
    const path = await writeWav(work, `${e.name}-${db ?? 'clean'}`, samples);
    const product = await analyzeAudioDetailed({ mixPath: path, keyModelPath: values.model });
    const row: Row = {
      name: e.name,
      short: e.seconds <= 2,
      profile: mirEvalKeyScore(product.profileKey, e.key!),
      model: mirEvalKeyScore(product.modelKey, e.key!),
      product: mirEvalKeyScore(product.key, e.key!),
      probability: product.modelKeyProbability ?? 0,
    };
    rows.push(row);
    if (db === null) {
      const bucket = row.model === 1 ? 'exact' : row.model > 0 ? 'close' : 'wrong';
      confidences[bucket].push(row.probability);
      if (values.mp3) {
        const mp3 = join(work, `${e.name}.mp3`);
        execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', path, '-b:a', '128k', mp3]);
        const fromMp3 = await analyzeAudioDetailed({ mixPath: mp3, keyModelPath: values.model });
        mp3Count++;
        if (fromMp3.key !== product.key) {
          mp3Differs++;
          console.log(`  mp3 differs: ${e.name} wav ${product.key}, mp3 ${fromMp3.key}`);
        }
      }
    }
    if (values.list)
      console.log(
        `  ${e.name.padEnd(36)} ${e.key!.padEnd(9)} profile ${String(product.profileKey).padEnd(9)} model ${String(product.modelKey).padEnd(9)} p ${row.probability.toFixed(2)} product ${product.key} (${product.keyConfidence})`,
      );
  }
  const label = db === null ? 'real set, clean' : `real set + drums ${db === 0 ? 'at the music RMS' : '6 dB louder'}`;
  for (const [part, pick] of [
    ['30 s', (r: Row) => !r.short],
    ['2 s', (r: Row) => r.short],
    ['all', () => true],
  ] as const) {
    const rs = rows.filter(pick);
    console.log(
      `${label.padEnd(36)} ${part.padEnd(5)} n ${String(rs.length).padStart(2)}  profile ${mean(rs.map((r) => r.profile)).toFixed(3)}  model ${mean(rs.map((r) => r.model)).toFixed(3)}  product ${mean(rs.map((r) => r.product)).toFixed(3)}`,
    );
  }
}
const fmt = (xs: number[]) => `${mean(xs).toFixed(2)} (${xs.length})`;
console.log(
  `model probability on the clean set: exact ${fmt(confidences.exact)}, close ${fmt(confidences.close)}, wrong ${fmt(confidences.wrong)}`,
);
if (values.mp3) console.log(`WAV vs MP3 128k: product key differs on ${mp3Differs} of ${mp3Count} excerpts`);

// No key: noise and drums alone, which the product should report with low or no confidence.
let seed = 33;
const noise = new Float32Array(10 * SYNTH_RATE).map(() => {
  seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31;
  return (seed / 2 ** 30 - 1) * 0.1;
});
for (const [name, x] of [
  ['white noise 10 s', noise],
  ['musdb drum stem 6 s', drums],
  ['musdb drum stem 2 s', drums.slice(2 * SYNTH_RATE, 4 * SYNTH_RATE)],
] as const) {
  const path = await writeWav(work, name.replace(/ /g, '-'), x.slice());
  const r = await analyzeAudioDetailed({ mixPath: path, keyModelPath: values.model });
  console.log(
    `no key: ${name.padEnd(22)} model ${r.modelKey} p ${r.modelKeyProbability}; product ${r.key} (confidence ${r.keyConfidence})`,
  );
}
rmSync(work, { recursive: true, force: true });

function cpuModel(): string {
  try {
    return /Model name:\s*(.*)/.exec(execFileSync('lscpu', { encoding: 'utf8' }))?.[1]?.trim() ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
