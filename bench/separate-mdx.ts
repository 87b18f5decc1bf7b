/**
 * MDX-Net beside HTDemucs on one 4-minute song: chunks (network runs) per second, wall time and
 * peak memory, each side in processes of its own under /usr/bin/time, sides alternating, medians.
 * No MDX-Net weights can be had here, so the MDX side runs a synthetic network of the real shape
 * (UVR-MDX-NET-Voc_FT's card: n_fft 7680, dim_f 3072, dim_t 256; support/mdx-synthetic-models.ts,
 * identity): its figures are everything around the network (decode, STFT, iSTFT, blending, the
 * peak-normalised stems' second pass, encode), which a real network's own time adds to. HTDemucs
 * is the product's (the separation process, BEST). `--batch 1,4` runs the MDX side at each batch
 * (chunks per network run), for the batch the engine uses (mdx-models.ts MDX_BATCH).
 *   node bin/run-ts.mjs bench/separate-mdx.ts [--seconds 240] [--repeat 2] [--batch 1,4] [--skip-htdemucs]
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs, promisify } from 'node:util';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';
import { SYNTHETIC_MDX_CARD, syntheticMdxModel } from '../support/mdx-synthetic-models.ts';
import { type TimedRun, timedRun } from './fixtures/timed-run.ts';
import { loopedTrack } from './fixtures/looped-track.ts';

const run = promisify(execFile);
const root = fileURLToPath(new URL('..', import.meta.url));

interface ChildArgs {
  side: 'htdemucs' | 'mdx';
  input: string;
  out: string;
  modelsDir: string;
  cacheDir: string;
  batch: number;
}

/** One separation in this process (the MDX side composed from the engine's pieces, at a batch). */
async function child(a: ChildArgs): Promise<void> {
  const t0 = performance.now();
  let timings: { segments: number; modelMs: number; dspMs: number };
  if (a.side === 'htdemucs') {
    const { SeparationEngine } = await import('../src/separation/engine.ts');
    const engine = new SeparationEngine({ modelsDir: a.modelsDir, cacheDir: a.cacheDir, threads: 2 });
    await engine.start();
    const r = await engine.separateFile({
      model: 'htdemucs',
      inputPath: a.input,
      outDir: a.out,
      stems: ['vocals', 'instrumental'],
      format: 'wav',
      quality: 'BEST',
    });
    await engine.close();
    timings = r.timings;
  } else {
    const { findModelSpec } = await import('../src/models/folder-models.ts');
    const { MdxModel } = await import('../src/separation/mdx-model.ts');
    const { MdxSpectrogram } = await import('../src/separation/mdx-spectrogram.ts');
    const { separateMdxFile } = await import('../src/separation/mdx-separate.ts');
    const { defaultTools } = await import('../src/audio/tools.ts');
    const spec = findModelSpec('mdx-identity', a.modelsDir)!;
    const params = spec.mdx!;
    const loaded = {
      model: await MdxModel.load(join(a.modelsDir, 'mdx-identity', 'model.onnx'), params, {
        executionProvider: 'cpu',
        threads: 2,
      }),
      spectrogram: await MdxSpectrogram.create(params),
      params,
      sources: ['vocals', 'instrumental'] as const,
      batch: a.batch,
      timings: { dspMs: 0 },
    };
    const r = await separateMdxFile(
      loaded,
      {
        model: 'mdx-identity',
        inputPath: a.input,
        outDir: a.out,
        stems: ['vocals', 'instrumental'],
        format: 'wav',
        quality: 'BEST',
      },
      { sampleRate: 44_100, tools: defaultTools, signal: new AbortController().signal, onProgress: () => undefined },
    );
    timings = r.timings;
  }
  process.stdout.write(JSON.stringify({ ...timings, ms: performance.now() - t0 }));
}

interface Measured extends TimedRun {
  chunks: number;
  modelS: number;
  dspS: number;
}

async function measure(a: ChildArgs): Promise<Measured> {
  const r = await timedRun(process.execPath, [
    join(root, 'bin/run-ts.mjs'),
    fileURLToPath(import.meta.url),
    '--child',
    JSON.stringify(a),
  ]);
  const t = JSON.parse(r.stdout) as { segments: number; modelMs: number; dspMs: number };
  return { ...r, chunks: t.segments, modelS: t.modelMs / 1000, dspS: t.dspMs / 1000 };
}

const { values } = parseArgs({
  options: {
    child: { type: 'boolean' },
    seconds: { type: 'string', default: '240' },
    repeat: { type: 'string', default: '2' },
    batch: { type: 'string', default: '1' },
    'skip-htdemucs': { type: 'boolean' },
  },
  allowPositionals: true,
  strict: false,
});

if (values.child) {
  await child(JSON.parse(process.argv.at(-1)!) as ChildArgs);
} else {
  const dir = mkdtempSync(join(tmpdir(), 'sf-bench-mdx-'));
  try {
    const seconds = Number(values.seconds);
    const input = join(dir, 'song.flac');
    await loopedTrack(sharedPath('audio', 'music', 'Kevin_MacLeod_-_Vibe_Ace.hq.ogg'), seconds, input);
    const modelsDir = join(dir, 'models');
    const folder = join(modelsDir, 'mdx-identity');
    mkdirSync(folder, { recursive: true });
    const onnx = syntheticMdxModel('identity', SYNTHETIC_MDX_CARD.mdx_dim_f_set, 2 ** SYNTHETIC_MDX_CARD.mdx_dim_t_set);
    writeFileSync(join(folder, 'model.onnx'), onnx);
    writeFileSync(join(folder, 'model.json'), JSON.stringify(SYNTHETIC_MDX_CARD));
    writeFileSync(join(folder, 'SHA256SUMS'), `${createHash('sha256').update(onnx).digest('hex')}  model.onnx\n`);
    const { stdout: cpu } = await run('sh', ['-c', "lscpu | grep 'Model name' | sed 's/.*: *//'"]);
    console.log(
      `input: ${seconds} s, ${cpus().length} CPUs (${cpu.trim()}); the machine may be shared: compare ratios within this run`,
    );
    if (!values['skip-htdemucs']) {
      // The prepared copy of HTDemucs is made once per machine (then cached): not in the first round.
      const { resolveModel } = await import('../src/models/resolve.ts');
      const { getModelSpec } = await import('../src/models/registry.ts');
      const { prepareModel } = await import('../src/separation/prepared-model.ts');
      const exported = resolveModel('htdemucs', { modelsDir })!.files['htdemucs.onnx']!;
      await prepareModel(exported, getModelSpec('htdemucs')!.files[0]!.sha256!, join(dir, 'cache'));
    }
    const batches = String(values.batch).split(',').map(Number);
    const sides: { name: string; args: Omit<ChildArgs, 'out'> }[] = [
      ...(values['skip-htdemucs']
        ? []
        : [
            {
              name: 'htdemucs BEST',
              args: { side: 'htdemucs' as const, input, modelsDir, cacheDir: join(dir, 'cache'), batch: 1 },
            },
          ]),
      ...batches.map((batch) => ({
        name: `mdx (synthetic) batch ${batch}`,
        args: { side: 'mdx' as const, input, modelsDir, cacheDir: join(dir, 'cache'), batch },
      })),
    ];
    const runs = new Map<string, Measured[]>(sides.map((s) => [s.name, []]));
    const line = (name: string, m: Measured) =>
      `${name.padEnd(26)} wall ${m.wallS.toFixed(1)} s, ${m.chunks} chunks, ${(m.chunks / m.wallS).toFixed(2)} chunks/s (network ${m.modelS.toFixed(1)} s, DSP ${m.dspS.toFixed(1)} s), peak ${(m.peakTreeMb / 1024).toFixed(2)} GB tree, largest process ${(m.peakRssMb / 1024).toFixed(2)} GB`;
    for (let r = 1; r <= Number(values.repeat); r++) {
      for (const s of sides) {
        const m = await measure({ ...s.args, out: join(dir, `out-${r}-${s.name.replace(/\W+/g, '-')}`) });
        runs.get(s.name)!.push(m);
        console.log(line(`${s.name} (${r})`, m));
      }
    }
    console.log('medians:');
    const med = (ms: Measured[]): Measured => ({
      stdout: '',
      wallS: median(ms.map((m) => m.wallS)),
      peakTreeMb: median(ms.map((m) => m.peakTreeMb)),
      peakRssMb: median(ms.map((m) => m.peakRssMb)),
      chunks: ms[0]!.chunks,
      modelS: median(ms.map((m) => m.modelS)),
      dspS: median(ms.map((m) => m.dspS)),
    });
    const summary = sides.map((s) => [s.name, med(runs.get(s.name)!)] as const);
    for (const [name, m] of summary) console.log(line(name, m));
    const ref = summary[0]![1];
    for (const [name, m] of summary.slice(1))
      console.log(
        `${name} / ${summary[0]![0]}: wall x${(m.wallS / ref.wallS).toFixed(2)}, peak tree memory x${(m.peakTreeMb / ref.peakTreeMb).toFixed(2)}`,
      );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
