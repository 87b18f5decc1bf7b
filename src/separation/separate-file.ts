import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { AudioEncoder } from '../audio/encode.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import { QUALITIES, type AudioFormat } from '../domain/vocabulary.ts';
import { QUALITY_SETTINGS } from './quality.ts';
import { separateStream, type StreamResult } from './separate-stream.ts';
import type { SegmentSeparator } from './segment-separator.ts';
import { SegmentCheckpoints } from './segment-checkpoints.ts';
import type { SeparateCall, SeparateResult } from './separate-request.ts';
import { checkStemsAvailable, DEFAULT_INSTRUMENTAL_MODE, STEM_NAMES, type StemName } from './stems.ts';

export function stemFileName(stem: StemName, format: AudioFormat, base?: string): string {
  return `${base ? `${base}_` : ''}${stem}.${format}`;
}

export function validateRequest(r: SeparateCall): void {
  if (r.stems.length === 0) throw new Error('no stems requested');
  for (const s of r.stems) if (!STEM_NAMES.includes(s)) throw new Error(`unknown stem '${s}'`);
  if (new Set(r.stems).size !== r.stems.length) throw new Error('a stem is requested twice');
  if (!QUALITIES.includes(r.quality)) throw new Error(`unknown quality '${r.quality}'`);
  if (r.fileBaseName !== undefined && /[/\\\0]/.test(r.fileBaseName))
    throw new Error('fileBaseName must be a plain file name');
}

/**
 * Runs a separation job with an already loaded model: streams the input through the model into one
 * encoder per stem. On failure or cancellation the partial outputs are removed.
 */
export async function separateFileWith(
  model: SegmentSeparator & { timings?: { modelMs: number; dspMs: number } },
  r: SeparateCall,
  env: {
    sampleRate: number;
    tools: FfmpegTools;
    onProgress?: (f: number) => void;
    signal?: AbortSignal;
    /** The model as loaded (weights, rewrites, provider): a checkpoint of another model is not resumed. */
    modelIdentity?: string;
  },
): Promise<SeparateResult> {
  validateRequest(r);
  checkStemsAvailable(r.stems, model.sources);
  const started = performance.now();
  const before = { ...(model.timings ?? { modelMs: 0, dspMs: 0 }) };
  await mkdir(r.outDir, { recursive: true });
  const files: Record<string, string> = {};
  const encoders = new Map<StemName, AudioEncoder>();
  for (const stem of r.stems) {
    const path = join(r.outDir, stemFileName(stem, r.format, r.fileBaseName));
    files[stem] = path;
    encoders.set(
      stem,
      new AudioEncoder(path, r.format, {
        sampleRate: env.sampleRate,
        channels: 2,
        tools: env.tools,
        limiter: r.limiter,
      }),
    );
  }
  let result: StreamResult;
  const checkpoints = r.checkpointDir
    ? await SegmentCheckpoints.open(r.checkpointDir, Object.fromEntries(encoders), env.modelIdentity ?? '')
    : undefined;
  try {
    result = await separateStream(model, checkpoints?.sinks ?? Object.fromEntries(encoders), {
      inputPath: r.inputPath,
      sampleRate: env.sampleRate,
      tools: env.tools,
      settings: QUALITY_SETTINGS[r.quality],
      instrumental: r.instrumental ?? DEFAULT_INSTRUMENTAL_MODE,
      normalize: r.normalize,
      onProgress: env.onProgress,
      signal: env.signal,
      checkpoints,
    });
    await Promise.all([...encoders.values()].map((e) => e.end()));
  } catch (err) {
    for (const e of encoders.values()) e.abort();
    await Promise.all([...encoders.values()].map((e) => rm(e.outPath, { force: true })));
    throw err;
  } finally {
    await checkpoints?.close();
  }
  const after = model.timings ?? { modelMs: 0, dspMs: 0 };
  return {
    files,
    durationSeconds: result.frames / env.sampleRate,
    resumedAt: result.resumedAt,
    timings: {
      totalMs: performance.now() - started,
      modelMs: after.modelMs - before.modelMs,
      dspMs: after.dspMs - before.dspMs,
      decodeMs: result.decodeMs,
      segments: result.segments,
    },
  };
}
