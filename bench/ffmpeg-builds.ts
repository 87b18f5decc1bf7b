/**
 * The system ffmpeg against the bundled WebAssembly build (bin/ffmpeg-wasm.mjs), through the
 * service's own code: probe, measure the decoded length (billing), decode to float (what the
 * engines read), encode MP3/FLAC from float (what the stems are written with), and a bare start
 * (`-version`). Sides alternate within each round; medians over the rounds; the ratio is bundled
 * over system. Prints figures, asserts nothing.
 *
 *   node bin/run-ts.mjs bench/ffmpeg-builds.ts [--rounds 5] [--seconds 60]
 */
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { promisify } from 'node:util';
import { bundledFfmpeg } from '../src/audio/ffmpeg-choice.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { measureDecodedLength } from '../src/audio/decoded-length.ts';
import { decodeAudio } from '../src/audio/decode.ts';
import { AudioEncoder } from '../src/audio/encode.ts';
import { defaultTools, type FfmpegTools } from '../src/audio/tools.ts';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';

const run = promisify(execFile);
const { values } = parseArgs({ options: { rounds: { type: 'string' }, seconds: { type: 'string' } } });
const rounds = Number(values.rounds ?? 5);
const seconds = Number(values.seconds ?? 60);

const bundled = await bundledFfmpeg();
if (!('tools' in bundled)) throw new Error(bundled.problem);
const sides: Record<'system' | 'bundled', FfmpegTools> = { system: defaultTools, bundled: bundled.tools };

// Inputs: `seconds` of a real song, in each format an upload may come in.
const dir = mkdtempSync(join(tmpdir(), 'sf-bench-ffmpeg-'));
const song = sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg');
const formats: Record<string, string[]> = {
  mp3: ['-c:a', 'libmp3lame', '-b:a', '320k'],
  m4a: ['-c:a', 'aac', '-b:a', '192k'],
  flac: ['-c:a', 'flac'],
  opus: ['-c:a', 'libopus', '-b:a', '128k', '-ar', '48000'],
  wav: [],
};
for (const [ext, args] of Object.entries(formats)) {
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-i',
    song,
    '-vn',
    '-t',
    String(seconds),
    '-ar',
    '44100',
    ...args,
    join(dir, `in.${ext}`),
  ]);
}

async function decodeAll(path: string, tools: FfmpegTools): Promise<Float32Array> {
  const chunks: Float32Array[] = [];
  for await (const chunk of decodeAudio(path, { tools })) chunks.push(chunk);
  return chunks[0] ?? new Float32Array();
}
const pcm: Float32Array[] = [];
for await (const chunk of decodeAudio(join(dir, 'in.wav'))) pcm.push(chunk);

async function encode(format: 'mp3' | 'flac', tools: FfmpegTools): Promise<void> {
  const encoder = new AudioEncoder(join(dir, `out-${Math.random()}.${format}`), format, { tools });
  for (const chunk of pcm) await encoder.write(chunk);
  await encoder.end();
}

const tasks: [string, (tools: FfmpegTools) => Promise<unknown>][] = [
  ['start (-version)', (t) => run(t.ffmpegPath, ['-version'])],
  ['probe mp3', (t) => probeAudio(join(dir, 'in.mp3'), t)],
  ...['mp3', 'm4a', 'flac', 'opus'].map(
    (ext) =>
      [
        `measure ${ext}`,
        (t: FfmpegTools) => measureDecodedLength(join(dir, `in.${ext}`), { sampleRate: 44_100, tools: t }),
      ] as [string, (tools: FfmpegTools) => Promise<unknown>],
  ),
  ['decode mp3 to float', (t) => decodeAll(join(dir, 'in.mp3'), t)],
  ['decode m4a to float', (t) => decodeAll(join(dir, 'in.m4a'), t)],
  ['encode mp3 320k', (t) => encode('mp3', t)],
  ['encode flac', (t) => encode('flac', t)],
];

const cpu = /Model name:\s*(.*)/.exec(execFileSync('lscpu', { encoding: 'utf8' }))?.[1]?.trim() ?? 'unknown';
const system = execFileSync('ffmpeg', ['-version'], { encoding: 'utf8' }).split('\n')[0];
console.log(`CPU: ${cpu}, ${rounds} rounds, ${seconds} s inputs; system: ${system}; bundled: FFmpeg 5.1.4 WebAssembly`);
console.log(`${'task'.padEnd(22)} ${'system ms'.padStart(10)} ${'bundled ms'.padStart(11)} ${'ratio'.padStart(6)}`);
try {
  for (const [name, task] of tasks) {
    const times: Record<string, number[]> = { system: [], bundled: [] };
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? (['system', 'bundled'] as const) : (['bundled', 'system'] as const);
      for (const side of order) {
        const started = performance.now();
        await task(sides[side]);
        times[side]!.push(performance.now() - started);
      }
    }
    const s = median(times.system!);
    const b = median(times.bundled!);
    console.log(
      `${name.padEnd(22)} ${s.toFixed(0).padStart(10)} ${b.toFixed(0).padStart(11)} ${(b / s).toFixed(2).padStart(6)}`,
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
