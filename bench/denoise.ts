/**
 * Denoise benchmark: DeepFilterNet3 (our engine, end to end through DenoiseEngine: ffmpeg decode,
 * worker thread, ffmpeg encode) against RNNoise, by SI-SDR against the clean reference; clean
 * speech passthrough; real-time factor and memory on a 30-minute input.
 *
 *   node bin/run-ts.mjs bench/denoise.ts [--long-minutes 30] [--skip-long]
 *
 * Prints figures only; never asserts (timings depend on the machine and its load).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DenoiseEngine } from '../src/denoise/engine.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sharedPath } from '../support/shared.ts';
import { buildMixes, readMono48, type Case } from './denoise-mixes.ts';
import { rnnoise } from './denoise-rnnoise.ts';

const { values } = parseArgs({
  options: { 'long-minutes': { type: 'string', default: '30' }, 'skip-long': { type: 'boolean', default: false } },
});
const longMinutes = Number(values['long-minutes']);

const denoiseDir = sharedPath('audio', 'denoise');
const speechDir = sharedPath('audio', 'speech');
const noisePath = join(denoiseDir, 'noise_freesound_573577.wav');
const cleanPath = join(denoiseDir, 'clean_freesound_33711.wav');
const work = mkdtempSync(join(tmpdir(), 'stemforge-bench-denoise-'));
const engine = new DenoiseEngine({ modelDir: sharedPath('models', 'dfn3') });

const fmt = (x: number | undefined, d = 2) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));

async function ours(c: { name: string; noisyPath: string }): Promise<{ out: Float32Array; seconds: number }> {
  const outPath = join(work, `${c.name}.dfn3.wav`);
  const t0 = performance.now();
  await engine.denoiseFile({ inputPath: c.noisyPath, outputPath: outPath, format: 'wav' });
  const seconds = (performance.now() - t0) / 1000;
  return { out: await readMono48(outPath), seconds };
}

/** Noise floor proxy for files without a reference: mean power of the quietest 10 % of 20 ms frames, dB. */
function floorDb(x: Float32Array): number {
  const f = 960;
  const powers: number[] = [];
  for (let i = 0; i + f <= x.length; i += f) {
    let s = 0;
    for (let j = i; j < i + f; j++) s += x[j] * x[j];
    powers.push(s / f);
  }
  powers.sort((a, b) => a - b);
  const q = powers.slice(0, Math.max(1, Math.floor(powers.length / 10)));
  return 10 * Math.log10(q.reduce((a, b) => a + b, 0) / q.length + 1e-12);
}

try {
  await engine.ready();
  const cases: Case[] = [];
  for (const f of readdirSync(denoiseDir).sort()) {
    if (f.startsWith('clean_') || f.startsWith('noise_') || !f.endsWith('.wav')) continue;
    const path = join(denoiseDir, f);
    const reference = f === 'noisy_snr0.wav' ? await readMono48(cleanPath) : undefined;
    cases.push({ name: f.replace(/\.wav$/, ''), noisyPath: path, noisy: await readMono48(path), reference });
  }
  const speech = readdirSync(speechDir)
    .filter((f) => f.endsWith('.ogg'))
    .sort()
    .map((f) => join(speechDir, f));
  cases.push(...(await buildMixes(speech, noisePath, [0, 5, 10], work)));

  console.log(`# Denoise quality: SI-SDR (dB) against the clean reference`);
  console.log(`| input | seconds | noisy | DeepFilterNet3 (ours) | RNNoise | ours - RNNoise |`);
  console.log(`|---|---:|---:|---:|---:|---:|`);
  let worstMargin = Infinity;
  for (const c of cases) {
    const { out } = await ours(c);
    const rn = await rnnoise(c.noisy);
    const secs = c.noisy.length / 48_000;
    if (c.reference) {
      const inp = siSdr(c.reference, c.noisy);
      const a = siSdr(c.reference, out);
      const b = siSdr(c.reference, rn);
      worstMargin = Math.min(worstMargin, a - b);
      console.log(`| ${c.name} | ${fmt(secs, 1)} | ${fmt(inp)} | ${fmt(a)} | ${fmt(b)} | ${fmt(a - b)} |`);
    } else {
      console.log(
        `| ${c.name} (no clean reference; noise floor dB) | ${fmt(secs, 1)} | ${fmt(floorDb(c.noisy), 1)} | ${fmt(floorDb(out), 1)} | ${fmt(floorDb(rn), 1)} | ${fmt(floorDb(rn) - floorDb(out), 1)} lower |`,
      );
    }
  }
  console.log(
    `\nworst margin ours - RNNoise: ${fmt(worstMargin)} dB (${worstMargin > 0 ? 'ours better on every file' : 'RNNOISE WINS ON SOME FILE'})`,
  );

  console.log(`\n# Clean speech passthrough: SI-SDR (dB) of output against input`);
  console.log(`| clean input | DeepFilterNet3 | RNNoise |`);
  console.log(`|---|---:|---:|`);
  for (const path of [cleanPath, ...speech]) {
    const name = path.split('/').pop()!;
    const wav = join(work, `${name}.clean48.wav`);
    execFileSync('ffmpeg', ['-nostdin', '-v', 'error', '-y', '-i', path, '-ac', '1', '-ar', '48000', wav]);
    const x = await readMono48(wav);
    const { out } = await ours({ name: `${name}.pass`, noisyPath: wav });
    console.log(`| ${name} | ${fmt(siSdr(x, out))} | ${fmt(siSdr(x, await rnnoise(x)))} |`);
  }

  if (!values['skip-long']) {
    const long = join(work, `long-${longMinutes}min.flac`);
    execFileSync('ffmpeg', [
      '-nostdin',
      '-v',
      'error',
      '-y',
      '-stream_loop',
      '-1',
      '-i',
      join(denoiseDir, 'noisy_snr0.wav'),
      '-t',
      String(longMinutes * 60),
      '-ac',
      '1',
      '-c:a',
      'flac',
      long,
    ]);
    const rss: { at: number; mb: number }[] = [];
    let peak = 0;
    const sample = (at: number) => {
      const mb = process.memoryUsage().rss / 2 ** 20;
      peak = Math.max(peak, mb);
      rss.push({ at, mb });
    };
    let lastFraction = 0;
    const timer = setInterval(() => sample(lastFraction), 1000);
    sample(0);
    const t0 = performance.now();
    const r = await engine.denoiseFile({
      inputPath: long,
      outputPath: join(work, 'long.mp3'),
      format: 'mp3',
      onProgress: (f) => (lastFraction = f),
    });
    const wall = (performance.now() - t0) / 1000;
    clearInterval(timer);
    sample(1);
    const at = (p: number) => rss.find((s) => s.at >= p)?.mb;
    console.log(
      `\n# Speed and memory: ${longMinutes}-minute input (noisy_snr0.wav looped, FLAC 48 kHz mono -> MP3 320k)`,
    );
    console.log(
      `machine: ${cpus().length} x ${cpus()[0]?.model ?? 'cpu'}, ORT CPU, 1 intra-op thread, node ${process.version}`,
    );
    console.log(
      `audio ${fmt(r.durationSeconds, 1)} s, wall ${fmt(wall, 1)} s, real-time factor ${fmt(wall / r.durationSeconds, 4)}`,
    );
    console.log(
      `process RSS (MiB; worker thread included, ffmpeg children not): at 10% ${fmt(at(0.1), 0)}, 50% ${fmt(at(0.5), 0)}, 90% ${fmt(at(0.9), 0)}, peak ${fmt(peak, 0)}`,
    );
  }
} finally {
  await engine.close();
  rmSync(work, { recursive: true, force: true });
}
