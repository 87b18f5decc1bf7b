import type { AudioFormat, QualityValue } from '../domain/vocabulary.ts';
import type { InstrumentalMode, StemName } from './stems.ts';

/**
 * One separation, as the workers (through the engines port), the CLI and the separation process
 * all describe it: the one request type from the job to the process that runs it.
 */
export interface SeparateRequest {
  /**
   * The registry name of the model that runs it: chosen once, when the job was created, and stored
   * with the job; nothing after that asks the registry again.
   */
  model: string;
  inputPath: string;
  outDir: string;
  /** The stems to write (the output type's, or fewer). */
  stems: StemName[];
  format: AudioFormat;
  quality: QualityValue;
  /** When set, files are named `<fileBaseName>_<stem>.<ext>` instead of `<stem>.<ext>`. */
  fileBaseName?: string;
  /** Default `residual` (measured best). */
  instrumental?: InstrumentalMode;
  /** Whole-track normalisation (default on, as Demucs). */
  normalize?: boolean;
  /** Look-ahead limiter before encoding (default on: the clipping policy of AudioEncoder). */
  limiter?: boolean;
  /** Fraction of the work done, 0..1. */
  onProgress?: (fraction: number) => void;
  /** Aborting stops the job within one segment (at most a few seconds) and removes partial outputs. */
  signal?: AbortSignal;
  /**
   * Keep each finished segment's state and samples in this folder, and resume from what an earlier,
   * interrupted run of the same request kept there (`segment-checkpoints.ts`; the HTDemucs family);
   * the caller removes it. Progress is reported after each segment's checkpoint is saved.
   */
  checkpointDir?: string;
}

/** The request as it crosses to the separation process: its callbacks stay on this side of the channel. */
export type SeparateCall = Omit<SeparateRequest, 'onProgress' | 'signal'>;

export interface SeparateResult {
  /** Output path by stem name. */
  files: Record<string, string>;
  durationSeconds: number;
  /** Segments an earlier run's checkpoint had finished (0: started at the first). */
  resumedAt: number;
  /** Where the time went, for benchmarks. */
  timings: { totalMs: number; modelMs: number; dspMs: number; decodeMs: number; segments: number };
}
