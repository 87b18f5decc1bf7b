import { decodeAudio } from '../audio/decode.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import { InputWindow } from './input-window.ts';
import { OverlapAdd } from './overlap-add.ts';
import type { InferenceSettings } from './quality.ts';
import { planSegments, transitionWeight } from './segment-plan.ts';
import { renderStem, type InstrumentalMode, type StemName } from './stems.ts';
import { FlipAveragingSeparator } from './test-time-augmentation.ts';
import type { SegmentSeparator } from './segment-separator.ts';
import { measureTrack } from './track-stats.ts';
import type { StreamCheckpoints } from './stream-checkpoints.ts';

/** Receives one stem as interleaved stereo float PCM, in order (an AudioEncoder fits). */
export interface StemSink {
  write(interleaved: Float32Array): Promise<void>;
}

export interface StreamOptions {
  inputPath: string;
  sampleRate: number;
  tools: FfmpegTools;
  settings: InferenceSettings;
  instrumental: InstrumentalMode;
  /** Whole-track normalisation as in `demucs/separate.py` (on by default). */
  normalize?: boolean;
  /** Reported after each segment, once its checkpoint (if any) is saved. */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** Save the state after every segment, and go on from a saved one (`segment-checkpoints.ts`). */
  checkpoints?: StreamCheckpoints;
}

export interface StreamResult {
  frames: number;
  segments: number;
  /** Segments a checkpoint had already finished (0: none, or not resumed). */
  resumedAt: number;
  decodeMs: number;
}

/**
 * Separates a file segment by segment: decode -> sliding input window -> model -> overlap-add ->
 * stem sinks. Holds about two segments of audio whatever the input's length. With `flips`, each
 * segment's output is the average of its plain and flipped passes (test-time-augmentation.ts).
 */
export async function separateStream(
  plainModel: SegmentSeparator,
  sinks: Partial<Record<StemName, StemSink>>,
  o: StreamOptions,
): Promise<StreamResult> {
  const flips = o.settings.flips ?? [];
  const model = flips.length > 0 ? new FlipAveragingSeparator(plainModel, flips) : plainModel;
  const seg = model.segmentFrames;
  const rows = model.sources.length * 2;
  const t0 = performance.now();
  const stats = await measureTrack(o.inputPath, { sampleRate: o.sampleRate, tools: o.tools, signal: o.signal });
  const decodeMs = performance.now() - t0;
  if (stats.frames === 0) throw new Error(`no audio decoded from ${o.inputPath}`);
  const normalize = o.normalize !== false && stats.std > 1e-8;
  const mean = normalize ? stats.mean : 0;
  const std = normalize ? stats.std : 1;

  const plan = planSegments(stats.frames, {
    segment: seg,
    overlap: o.settings.overlap,
    shifts: o.settings.shifts,
    seed: o.settings.seed,
    schedule: o.settings.schedule,
    sampleRate: o.sampleRate,
  });
  const passes = Math.max(...plan.map((s) => s.pass)) + 1;
  const weight = transitionWeight(seg);
  const acc = Array.from({ length: passes }, () => new OverlapAdd(rows, 2 * seg));
  const decoder = decodeAudio(o.inputPath, { sampleRate: o.sampleRate, channels: 2, tools: o.tools, signal: o.signal });
  const input = new InputWindow(decoder[Symbol.asyncIterator](), stats.frames, 3 * seg);
  const stems = Object.keys(sinks) as StemName[];
  const mixIn = new Float32Array(2 * seg);
  let emitted = 0;
  let start = 0;

  const emit = async (to: number) => {
    const n = to - emitted;
    if (n <= 0) return;
    const sources = new Float32Array(rows * n);
    for (const a of acc) a.takeInto(to, sources, 1 / passes);
    // Undo the normalisation: Demucs returns `sources * std + mean`.
    if (normalize) for (let i = 0; i < sources.length; i++) sources[i] = sources[i]! * std + mean;
    const mix = new Float32Array(2 * n);
    input.read(emitted, n, mix);
    const out = new Float32Array(2 * n);
    for (const stem of stems) {
      renderStem(stem, sources, model.sources, mix, n, o.instrumental, out);
      await sinks[stem]!.write(out);
    }
    emitted = to;
  };

  try {
    // Everything the stems depend on besides the model (the checkpoints add the model's identity).
    const identity = JSON.stringify({ ...stats, plan: plan.length, settings: o.settings, normalize, stems, seg });
    const resumed = (await o.checkpoints?.resume(`${identity} ${o.instrumental} ${o.sampleRate}`)) ?? null;
    if (resumed) {
      for (const [pass, p] of resumed.passes.entries()) acc[pass]?.restore(p);
      emitted = resumed.emitted;
      start = resumed.next;
      // The window as the loop left it after the segment before `start`.
      const keepFrom = Math.min(emitted, plan[start]?.inputStart ?? emitted);
      for (let at = 0; at < keepFrom; ) {
        at = Math.min(at + seg, keepFrom);
        await input.fill(at);
        input.discardBefore(at);
      }
    }
    o.onProgress?.(start / plan.length);
    for (let i = start; i < plan.length; i++) {
      o.signal?.throwIfAborted();
      const s = plan[i]!;
      await input.fill(s.inputStart + seg);
      input.read(s.inputStart, seg, mixIn, mean, 1 / std);
      const out = await model.separate(mixIn);
      const from = Math.max(s.keepStart, 0);
      const to = Math.min(s.keepStart + s.keepLength, stats.frames);
      acc[s.pass]!.add(out, seg, s.inputStart, from, to, weight, s.keepStart);
      const next = plan[i + 1];
      // Samples before the next segment's kept range are final (the plan is ordered by keepStart).
      await emit(next ? Math.min(Math.max(next.keepStart, emitted), stats.frames) : stats.frames);
      input.discardBefore(Math.min(emitted, next ? next.inputStart : emitted));
      await o.checkpoints?.save({ next: i + 1, emitted, passes: acc.map((a) => a.snapshot()) });
      o.onProgress?.((i + 1) / plan.length);
    }
  } finally {
    await decoder.return(undefined);
  }
  return { frames: stats.frames, segments: plan.length, resumedAt: start, decodeMs };
}
