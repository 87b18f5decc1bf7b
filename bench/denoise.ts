/**
 * Voice-cleaning benchmark on our evaluation set (support/denoise-set.ts: narrowband 16 kHz and
 * full-band 44.1/48 kHz speech, short and long, babble/fan/street/music at 0/5/10/15 dB SNR, and
 * clean speech). For the noisy input, ours (DeepFilterNet3 end to end through DenoiseEngine: ffmpeg
 * decode, worker thread, output at the input's rate), RNNoise (48 kHz; resampled there and back)
 * and GTCRN (16 kHz; resampled there and back) in the same run: SI-SDR gain over the whole file and
 * over its first second, and STOI. Then the real-time factor and memory on a long input.
 *
 *   node bin/run-ts.mjs bench/denoise.ts [--ablations [--no-high-pass]] [--per-file] [--long-minutes 30] [--skip-long | --skip-set]
 *
 * --ablations adds ours with upstream's cold start (no mirrored warm-up), and with --no-high-pass
 * also ours without the 35 Hz high-pass.
 * Prints figures only; never asserts (timings depend on the machine and its load).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DenoiseEngine, type DenoiseEngineOptions } from '../src/denoise/engine.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sharedPath } from '../support/shared.ts';
import { GTCRN_RATE, Gtcrn } from './denoise-gtcrn.ts';
import { readMono, resampleSinc } from '../support/denoise-mixes.ts';
import { rnnoise } from './denoise-rnnoise.ts';
import { buildEvalSet, NOISES, type EvalCase } from '../support/denoise-set.ts';
import { STOI_RATE, stoi } from './denoise-stoi.ts';

const { values } = parseArgs({
  options: {
    'long-minutes': { type: 'string', default: '30' },
    'skip-long': { type: 'boolean', default: false },
    ablations: { type: 'boolean', default: false },
    'per-file': { type: 'boolean', default: false },
    'no-high-pass': { type: 'boolean', default: false },
    'skip-set': { type: 'boolean', default: false },
  },
});
const longMinutes = Number(values['long-minutes']);
const denoiseDir = sharedPath('audio', 'denoise');
const work = mkdtempSync(join(tmpdir(), 'stemforge-bench-denoise-'));
const modelDir = sharedPath('models', 'dfn3');
const fmt = (x: number | undefined, d = 2) => (x === undefined || !Number.isFinite(x) ? 'n/a' : x.toFixed(d));
const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : Number.NaN);

type System = { name: string; run: (c: EvalCase) => Promise<Float32Array> };
interface Score {
  system: string;
  c: EvalCase;
  whole: number;
  first: number;
  stoi: number;
}

let seq = 0;
/** `x` at `from` Hz resampled to `to` Hz (in process; see resampleSinc). */
async function resample(x: Float32Array, from: number, to: number): Promise<Float32Array> {
  return resampleSinc(x, from, to);
}

const engines: DenoiseEngine[] = [];
let oursSeconds = 0;
let oursAudio = 0;
function ours(name: string, opts: Partial<DenoiseEngineOptions> = {}, timed = false): System {
  const engine = new DenoiseEngine({ modelDir, ...opts });
  engines.push(engine);
  return {
    name,
    run: async (c) => {
      const out = join(work, `out-${seq++}.wav`);
      const t0 = performance.now();
      const r = await engine.denoiseFile({ inputPath: c.noisyPath, outputPath: out, format: 'wav' });
      if (timed) {
        oursSeconds += (performance.now() - t0) / 1000;
        oursAudio += c.noisy.length / c.rate;
      }
      if (r.sampleRate !== c.rate) throw new Error(`output at ${r.sampleRate} Hz for a ${c.rate} Hz input`);
      const y = await readMono(out, c.rate);
      rmSync(out);
      return y;
    },
  };
}

function firstSecond(ref: Float32Array, est: Float32Array, rate: number): number {
  return siSdr(ref.subarray(0, rate), est.subarray(0, rate));
}

try {
  const cases = values['skip-set'] ? [] : await buildEvalSet(work);
  const gtcrn = await Gtcrn.load(sharedPath('models', 'gtcrn', 'gtcrn_simple.onnx'));
  const systems: System[] = [
    { name: 'noisy', run: async (c) => c.noisy },
    ours('ours', {}, true),
    {
      name: 'RNNoise',
      run: async (c) => resample(await rnnoise(await resample(c.noisy, c.rate, 48_000)), 48_000, c.rate),
    },
    {
      name: 'GTCRN',
      run: async (c) => resample(await gtcrn.run(await resample(c.noisy, c.rate, GTCRN_RATE)), GTCRN_RATE, c.rate),
    },
  ];
  if (values.ablations) {
    systems.push(ours('ours, upstream cold start', { startup: 'none' }));
    if (values['no-high-pass']) systems.push(ours('ours, no 35 Hz high-pass', { highPassHz: 0 }));
  }
  await Promise.all(engines.map((e) => e.ready()));
  if (cases.length === 0) systems.length = 0;
  const scores: Score[] = [];
  const names = systems.map((s) => s.name);
  if (values['per-file']) {
    console.log('# Per file: SI-SDR (dB) whole / first second, STOI');
    console.log(`| file | ${names.join(' | ')} |`);
    console.log(`|---|${names.map(() => '---:').join('|')}|`);
  }
  for (const c of cases) {
    const clean10 = await resample(c.clean, c.rate, STOI_RATE);
    // Alternate the order of the systems from case to case (machine load drifts).
    const order = seq % 2 === 0 ? systems : [...systems].reverse();
    for (const s of order) {
      const y = await s.run(c);
      scores.push({
        system: s.name,
        c,
        whole: siSdr(c.clean, y),
        first: firstSecond(c.clean, y, c.rate),
        stoi: await stoi(clean10, await resample(y, c.rate, STOI_RATE)),
      });
    }
    if (values['per-file']) {
      const cells = names.map((n) => {
        const s = scores.find((x) => x.system === n && x.c === c)!;
        return `${fmt(s.whole)} / ${fmt(s.first)} / ${fmt(s.stoi, 3)}`;
      });
      console.log(`| ${c.name} | ${cells.join(' | ')} |`);
    }
  }
  await gtcrn.close();
  if (cases.length > 0) printTables();
  function printTables() {
    const pick = (pred: (s: Score) => boolean, system: string) => scores.filter((s) => s.system === system && pred(s));
    const noisyOf = new Map(scores.filter((s) => s.system === 'noisy').map((s) => [s.c, s]));
    const gain = (s: Score) => s.whole - noisyOf.get(s.c)!.whole;
    const gainFirst = (s: Score) => s.first - noisyOf.get(s.c)!.first;
    const cpu = cpus()[0]?.model ?? 'cpu';
    console.log(`machine: ${cpus().length} x ${cpu} (shared with other engineers' work), node ${process.version}`);
    console.log(
      `set: ${cases.length} files (${cases.filter((c) => c.snr !== null).length} noisy, ${cases.filter((c) => c.snr === null).length} clean)`,
    );

    console.log(
      '\n# Mean SI-SDR gain (dB) over the input, whole file / first second; mean STOI (noisy STOI in the first column)',
    );
    console.log(
      `| group | files | noisy STOI | ${names
        .slice(1)
        .map((n) => `${n}: gain / 1st s / STOI`)
        .join(' | ')} |`,
    );
    console.log(
      `|---|---:|---:|${names
        .slice(1)
        .map(() => '---:')
        .join('|')}|`,
    );
    const groups: [string, (s: Score) => boolean][] = [];
    for (const band of ['NB', 'FB'])
      for (const [label, lo, hi] of [
        ['0-5 dB', 0, 5],
        ['10-15 dB', 10, 15],
      ] as const)
        groups.push([
          `${band} ${label}`,
          (s) => s.c.item.band === band && s.c.snr !== null && s.c.snr >= lo && s.c.snr <= hi,
        ]);
    for (const noise of NOISES) groups.push([`noise: ${noise}`, (s) => s.c.noise === noise]);
    for (const len of ['short', 'long'])
      groups.push([`${len} utterances`, (s) => s.c.snr !== null && s.c.item.length === len]);
    groups.push(['all noisy', (s) => s.c.snr !== null]);
    for (const [label, pred] of groups) {
      const base = pick(pred, 'noisy');
      const cells = names.slice(1).map((n) => {
        const g = pick(pred, n);
        return `${fmt(mean(g.map(gain)))} / ${fmt(mean(g.map(gainFirst)))} / ${fmt(mean(g.map((s) => s.stoi)), 3)}`;
      });
      console.log(`| ${label} | ${base.length} | ${fmt(mean(base.map((s) => s.stoi)), 3)} | ${cells.join(' | ')} |`);
    }

    console.log('\n# Worst file (dB gain over the input; noisy files)');
    console.log(
      '| system | worst whole-file gain | worst first-second gain | files worse than input by > 0.5 dB (whole / first s) |',
    );
    console.log('|---|---:|---:|---:|');
    for (const n of names.slice(1)) {
      const g = pick((s) => s.c.snr !== null, n);
      const worst = g.reduce((a, b) => (gain(a) < gain(b) ? a : b));
      const worstFirst = g.reduce((a, b) => (gainFirst(a) < gainFirst(b) ? a : b));
      console.log(
        `| ${n} | ${fmt(gain(worst))} (${worst.c.name}) | ${fmt(gainFirst(worstFirst))} (${worstFirst.c.name}) | ${g.filter((s) => gain(s) < -0.5).length} / ${g.filter((s) => gainFirst(s) < -0.5).length} |`,
      );
    }

    console.log('\n# Clean speech passthrough: SI-SDR (dB) of the output against the input, whole / first second');
    console.log(`| clean input | ${names.slice(1).join(' | ')} |`);
    console.log(
      `|---|${names
        .slice(1)
        .map(() => '---:')
        .join('|')}|`,
    );
    for (const c of cases.filter((x) => x.snr === null)) {
      const cells = names.slice(1).map((n) => {
        const s = scores.find((x) => x.system === n && x.c === c)!;
        return `${fmt(s.whole)} / ${fmt(s.first)}`;
      });
      console.log(`| ${c.item.name} (${c.rate} Hz, ${fmt(c.noisy.length / c.rate, 1)} s) | ${cells.join(' | ')} |`);
    }

    console.log(
      `\nours over the set: ${fmt(oursAudio, 1)} s of audio in ${fmt(oursSeconds, 1)} s (RTF ${fmt(oursSeconds / oursAudio, 3)}, file overheads included)`,
    );
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
    const r = await engines[0]!.denoiseFile({
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
    console.log(`ORT CPU, 1 intra-op thread`);
    console.log(
      `audio ${fmt(r.durationSeconds, 1)} s, wall ${fmt(wall, 1)} s, real-time factor ${fmt(wall / r.durationSeconds, 4)}`,
    );
    console.log(
      `process RSS (MiB; worker thread included, ffmpeg children not): at 10% ${fmt(at(0.1), 0)}, 50% ${fmt(at(0.5), 0)}, 90% ${fmt(at(0.9), 0)}, peak ${fmt(peak, 0)}`,
    );
  }
} finally {
  await Promise.all(engines.map((e) => e.close()));
  rmSync(work, { recursive: true, force: true });
}
