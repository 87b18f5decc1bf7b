import { decodeToPlanar } from '../support/decode-planar.ts';
/**
 * The key's two sides on rendered classical pieces and on material with no tonal centre (bench
 * only): DIR is what bench/analyze-key-classical.py wrote (its manifest names each file's key, or
 * none); ../shared adds speech, noise and a drum stem. Every file is analysed whole (up to 30 s)
 * and as 10 s and 2 s excerpts from its middle; per file the reported key and confidence, the
 * tonality, both methods' keys; then per group how many got a key and their MIREX score. Every
 * classical piece is also analysed as an old recording would carry it (`classical-old`): a room's
 * echoes, 80 Hz - 5.5 kHz, and hiss (pink noise) 10 dB below the music.
 *
 *   node bin/run-ts.mjs bench/analyze-key-classical.ts DIR [--hiss]
 *
 * --hiss instead: 10 s and 4 s of each labelled piece, and of ../shared's Karissa Hobbs (Bb major)
 * and EDM (Eb major) tracks from 30 s in, under seeded white noise 8, 11, 14 and 17 dB louder
 * than the music: where the tonality gate gives up, and what is answered there.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeAudioDetailed, FRAME_CONTRAST_OFFSET } from '../src/analysis/analyze-audio.ts';
import { SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';
import { rng } from '../support/fixtures/synth-voices.ts';
import { sharedPath } from '../support/shared.ts';
import { mirexKeyScore } from '../support/analyze-metrics.ts';

const dir = process.argv[2] ?? '/var/tmp/stemforge-key-classical';
const hissMode = process.argv.includes('--hiss');
const work = mkdtempSync(join(tmpdir(), 'stemforge-key-classical-'));
interface Piece {
  path: string;
  kind: string;
  key: string | null;
}
const pieces: Piece[] = (
  JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as { file: string; kind: string; key: string | null }[]
).map((p) => ({ path: join(dir, p.file), kind: p.kind, key: p.key }));
for (const id of ['198-209-0000', '3436-172162-0000', '5703-47212-0000'])
  pieces.push({ path: sharedPath('audio', 'speech', `${id}.hq.ogg`), kind: 'speech', key: null });
pieces.push({ path: sharedPath('audio', 'musdb-falcon69', 'drums.wav'), kind: 'drums', key: null });
pieces.push({ path: sharedPath('audio', 'denoise', 'noise_freesound_573577.wav'), kind: 'noise', key: null });
pieces.push({ path: sharedPath('audio', 'denoise-dev', 'noise_fan_44k.wav'), kind: 'noise', key: null });

/** `path` as an old recording: echoes, band-limited, pink hiss 10 dB below it. */
async function oldRecording(path: string, name: string): Promise<string> {
  const echoed = join(work, `${name}-echo.wav`);
  const chain = 'aecho=0.8:0.7:50|110|190|280:0.5|0.4|0.3|0.2,highpass=f=80,lowpass=f=5500';
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-i',
    path,
    '-af',
    chain,
    '-ar',
    String(SYNTH_RATE),
    echoed,
  ]);
  const x = (await decodeToPlanar(echoed, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
  // Pink noise (Paul Kellet's filter over seeded white noise), scaled to 10 dB below the music.
  const rand = rng(7);
  const pink = new Float32Array(x.length);
  let b0 = 0;
  let b1 = 0;
  let b2 = 0;
  for (let i = 0; i < pink.length; i++) {
    const w = rand() - 0.5;
    b0 = 0.99765 * b0 + w * 0.099046;
    b1 = 0.963 * b1 + w * 0.2965164;
    b2 = 0.57 * b2 + w * 1.0526913;
    pink[i] = b0 + b1 + b2 + w * 0.1848;
  }
  const power = (v: Float32Array) => v.reduce((a, b) => a + b * b, 0) / v.length;
  const g = Math.sqrt(power(x) / power(pink) / 10);
  return writeWav(
    work,
    `${name}-old`,
    x.map((v, i) => v + g * pink[i]!),
  );
}

const seconds = (path: string) =>
  Number(execFileSync('ffprobe', ['-v', 'error', '-show_entries', 'format=duration', '-of', 'csv=p=0', path]));

/** `length` seconds from the middle of `path` (the first 30 s for `whole`), as a WAV file. */
function excerpt(path: string, length: number | 'whole', n: number): string {
  const total = Math.min(30, seconds(path));
  const len = length === 'whole' ? total : Math.min(length, total);
  const out = join(work, `${n}.wav`);
  const start = length === 'whole' ? 0 : (total - len) / 2;
  execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-ss', String(start), '-t', String(len), '-i', path, out]);
  return out;
}

const rows: { kind: string; part: string; key: string | null; found: string | null; confidence: number | null }[] = [];
let n = 0;
/** `x` with seeded white noise `db` dB above its power. */
function withHiss(x: Float32Array, db: number): Float32Array {
  const rand = rng(3);
  const w = x.map(() => rand() - 0.5);
  const power = (v: Float32Array) => v.reduce((a, b) => a + b * b, 0) / v.length;
  const g = Math.sqrt((power(x) * 10 ** (db / 10)) / power(w));
  return x.map((v, i) => v + g * w[i]!);
}

async function hissSweep(): Promise<void> {
  const labelled: [string, string, number][] = pieces.filter((p) => p.key).map((p) => [p.path, p.key!, 0]);
  labelled.push([sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg'), 'Bb major', 30]);
  labelled.push([sharedPath('audio', 'tempo-key', 'EDM_Eb_major_2min.mp3'), 'Eb major', 30]);
  console.log(
    'file | seconds | hiss dB | label | key (confidence) | method | tonality | profile key (score) | model key (p)',
  );
  for (const [path, key, start] of labelled) {
    const all = (await decodeToPlanar(path, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
    for (const secs of [10, 4])
      for (const db of [8, 11, 14, 17]) {
        const x = all.slice(start * SYNTH_RATE, (start + secs) * SYNTH_RATE);
        const r = await analyzeAudioDetailed({ mixPath: await writeWav(work, `hiss-${n++}`, withHiss(x, db)) });
        const tonality = Math.max(r.chromaContrast ?? 0, (r.frameContrast ?? 0) - FRAME_CONTRAST_OFFSET);
        console.log(
          `${path.split('/').pop()} | ${secs} | ${db} | ${key} | ${r.key ?? 'null'} (${r.keyConfidence ?? '-'}) | ${r.keyMethod ?? '-'} | ${tonality.toFixed(3)} | ${r.profileKey} (${r.keyScore}) | ${r.modelKey} (${r.modelKeyProbability})`,
        );
      }
  }
}

try {
  if (hissMode) await hissSweep();
  else await overview();
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function overview(): Promise<void> {
  for (const p of pieces.filter((q) => q.kind === 'classical'))
    pieces.push({ path: await oldRecording(p.path, `old-${n++}`), kind: 'classical-old', key: p.key });
  console.log('file | part | label | key (confidence) | method | tonality | profile key (score) | model key (p)');
  for (const p of pieces) {
    for (const part of ['whole', 10, 2] as const) {
      const r = await analyzeAudioDetailed({ mixPath: excerpt(p.path, part, n++) });
      const tonality = Math.max(r.chromaContrast ?? 0, (r.frameContrast ?? 0) - FRAME_CONTRAST_OFFSET);
      rows.push({ kind: p.kind, part: String(part), key: p.key, found: r.key, confidence: r.keyConfidence });
      console.log(
        [
          p.path.split('/').pop(),
          part,
          p.key ?? '-',
          `${r.key ?? 'null'} (${r.keyConfidence ?? '-'})`,
          r.keyMethod ?? '-',
          tonality.toFixed(3),
          `${r.profileKey ?? '-'} (${r.keyScore ?? '-'})`,
          `${r.modelKey ?? '-'} (${r.modelKeyProbability ?? '-'})`,
        ].join(' | '),
      );
    }
  }
  console.log('\ngroup | part | files | with a key | MIREX score of the labelled | mean confidence given');
  for (const kind of [...new Set(rows.map((r) => r.kind))])
    for (const part of ['whole', '10', '2']) {
      const g = rows.filter((r) => r.kind === kind && r.part === part);
      const keyed = g.filter((r) => r.found);
      const labelled = g.filter((r) => r.key);
      const score = labelled.reduce((s, r) => s + mirexKeyScore(r.found, r.key!), 0) / (labelled.length || 1);
      const conf = keyed.reduce((s, r) => s + r.confidence!, 0) / (keyed.length || 1);
      console.log(
        `${kind} | ${part} | ${g.length} | ${keyed.length} | ${labelled.length ? score.toFixed(3) : '-'} | ${keyed.length ? conf.toFixed(2) : '-'}`,
      );
    }
}
