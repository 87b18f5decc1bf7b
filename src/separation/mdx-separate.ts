import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AudioEncoder } from '../audio/encode.ts';
import { decodeAudio } from '../audio/decode.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import type { StemName } from '../domain/vocabulary.ts';
import { InputWindow } from './input-window.ts';
import { MdxBlend } from './mdx-blend.ts';
import { planMdxChunks, symmetricHann } from './mdx-chunks.ts';
import type { MdxModel } from './mdx-model.ts';
import type { MdxParams } from './mdx-params.ts';
import type { MdxSpectrogram } from './mdx-spectrogram.ts';
import { PeakNormalizedStems } from './peak-normalized-stems.ts';
import { stemFileName, validateRequest } from './separate-file.ts';
import type { SeparateCall, SeparateResult } from './separate-request.ts';
import { checkStemsAvailable } from './stems.ts';
import { measureTrack } from './track-stats.ts';

/** python-audio-separator's `normalization_threshold`: the mix and each stem are scaled down to this peak. */
const MDX_PEAK = 0.9;

/** A loaded MDX-Net model: its network, its spectrogram, its settings and its two stems (primary first). */
export interface LoadedMdx {
  model: MdxModel;
  spectrogram: MdxSpectrogram;
  params: MdxParams;
  /** `[primary, secondary]`: the network's stem and the mix minus it. */
  sources: readonly [StemName, StemName];
  /** Chunks per network run (bench/separate-mdx.ts). */
  batch: number;
  timings: { dspMs: number };
}

/**
 * One MDX-Net separation as python-audio-separator's `MDXSeparator.separate` does it, streamed:
 * the mix scaled down to a peak of 0.9 when above it, cut into chunks (mdx-chunks.ts), each through
 * the STFT, the network (and its negated twin with `denoise`) and the inverse STFT, blended with Hann
 * windows; the primary stem is `compensate` x that, the secondary the mix minus it; each stem is then
 * scaled down to a peak of 0.9 when above it (peak-normalized-stems.ts) and encoded.
 * `normalize: false` leaves the levels as they are.
 */
export async function separateMdxFile(
  m: LoadedMdx,
  r: SeparateCall,
  env: { sampleRate: number; tools: FfmpegTools; signal: AbortSignal; onProgress: (f: number) => void },
): Promise<SeparateResult> {
  validateRequest(r);
  checkStemsAvailable(r.stems, m.sources);
  const started = performance.now();
  const before = { modelMs: m.model.timings.modelMs, dspMs: m.timings.dspMs };
  await mkdir(r.outDir, { recursive: true });
  const t0 = performance.now();
  const stats = await measureTrack(r.inputPath, { sampleRate: env.sampleRate, tools: env.tools, signal: env.signal });
  const decodeMs = performance.now() - t0;
  if (stats.frames === 0) throw new Error(`no audio decoded from ${r.inputPath}`);
  const normalize = r.normalize !== false;
  const scale = normalize && stats.peak > MDX_PEAK ? MDX_PEAK / stats.peak : 1;
  const files = Object.fromEntries(r.stems.map((s) => [s, join(r.outDir, stemFileName(s, r.format, r.fileBaseName))]));
  const stems = new PeakNormalizedStems(r.outDir, r.stems);
  let segments = 0;
  try {
    segments = await demix(m, r.inputPath, stats.frames, scale, stems, env);
    await stems.encode(normalize ? MDX_PEAK : Number.POSITIVE_INFINITY, (stem) => {
      return new AudioEncoder(files[stem]!, r.format, {
        sampleRate: env.sampleRate,
        channels: 2,
        tools: env.tools,
        limiter: r.limiter,
      });
    });
  } catch (err) {
    await Promise.all(Object.values(files).map((f) => rm(f, { force: true })));
    throw err;
  } finally {
    await stems.dispose();
  }
  return {
    files,
    durationSeconds: stats.frames / env.sampleRate,
    // An MDX separation keeps no checkpoints: a run cut short starts over.
    resumedAt: 0,
    timings: {
      totalMs: performance.now() - started,
      modelMs: m.model.timings.modelMs - before.modelMs,
      dspMs: m.timings.dspMs - before.dspMs,
      decodeMs,
      segments,
    },
  };
}

/** The chunk loop of `MDXSeparator.demix`; returns the number of chunks. */
async function demix(
  m: LoadedMdx,
  inputPath: string,
  frames: number,
  scale: number,
  stems: PeakNormalizedStems,
  env: { sampleRate: number; tools: FfmpegTools; signal: AbortSignal; onProgress: (f: number) => void },
): Promise<number> {
  const p = m.params;
  const plan = planMdxChunks(frames, p);
  const { trim, chunk, length } = plan;
  const decoder = decodeAudio(inputPath, {
    sampleRate: env.sampleRate,
    channels: 2,
    tools: env.tools,
    signal: env.signal,
  });
  const input = new InputWindow(decoder[Symbol.asyncIterator](), frames, 3 * chunk);
  const blend = new MdxBlend(2 * chunk);
  const size = m.spectrogram.specSize;
  const batch = Math.max(1, Math.min(m.batch, m.model.maxBatch));
  const spec = new Float32Array(batch * size);
  const wave = new Float32Array(2 * chunk);
  const fullWindow = p.overlap !== 0 ? symmetricHann(chunk) : null;
  let emitted = 0; // mixture position
  const [primary, secondary] = m.sources;

  /** Takes the finished mixture positions [emitted, to) out of the blend and writes the track's part of them. */
  const emit = async (to: number) => {
    const n = to - emitted;
    if (n <= 0) return;
    const tar = new Float32Array(2 * n);
    blend.take(emitted, to, tar);
    const from = Math.max(emitted, trim);
    const end = Math.min(to, trim + frames);
    const k = end - from;
    if (k > 0) {
      const source = new Float32Array(2 * k);
      const mix = new Float32Array(2 * k);
      input.read(from - trim, k, mix, 0, scale);
      for (let c = 0; c < 2; c++)
        for (let i = 0; i < k; i++) source[c * k + i] = tar[c * n + (from - emitted) + i]! * p.compensate;
      const rest = new Float32Array(2 * k);
      for (let i = 0; i < 2 * k; i++) rest[i] = mix[i]! - source[i]!;
      await stems.write(primary, source, k);
      await stems.write(secondary, rest, k);
    }
    emitted = to;
  };

  try {
    env.onProgress(0);
    for (let b = 0; b < plan.starts.length; b += batch) {
      env.signal.throwIfAborted();
      const starts = plan.starts.slice(b, b + batch);
      const t0 = performance.now();
      for (const [j, start] of starts.entries()) {
        await input.fill(start - trim + chunk);
        input.read(start - trim, chunk, wave, 0, scale);
        m.spectrogram.analyze(wave, spec, j * size);
      }
      m.timings.dspMs += performance.now() - t0;
      const out = await runNetwork(m, spec.subarray(0, starts.length * size), starts.length);
      const t1 = performance.now();
      for (const [j, start] of starts.entries()) {
        m.spectrogram.synthesize(out, wave, j * size);
        const actual = Math.min(start + chunk, length) - start;
        const window = fullWindow && actual !== chunk ? symmetricHann(actual) : fullWindow;
        blend.add(start, wave, chunk, actual, window);
      }
      m.timings.dspMs += performance.now() - t1;
      const next = plan.starts[b + batch];
      // Positions before the next chunk's start receive nothing more.
      await emit(next ?? length);
      input.discardBefore(Math.min(emitted, next ?? emitted) - trim);
      env.onProgress(Math.min(b + batch, plan.starts.length) / plan.starts.length);
    }
  } finally {
    await decoder.return(undefined);
  }
  return plan.starts.length;
}

/** The network on a batch; with `denoise`, averaged with its answer to the negated spectrogram (`run_model`). */
async function runNetwork(m: LoadedMdx, spec: Float32Array, count: number): Promise<Float32Array> {
  const plain = await m.model.run(spec, count);
  if (!m.params.denoise) return plain;
  const kept = Float32Array.from(plain);
  const negated = Float32Array.from(spec, (v) => -v);
  const twin = await m.model.run(negated, count);
  for (let i = 0; i < kept.length; i++) kept[i] = twin[i]! * -0.5 + kept[i]! * 0.5;
  return kept;
}
