import type { AudioFormat } from '../audio/encode.ts';
import type { FfmpegTools } from '../audio/tools.ts';

/** Messages between DenoiseEngine (caller's thread) and its worker thread (engine-thread.ts). */

export interface EngineThreadData {
  modelDir: string;
  executionProvider: 'cpu' | 'cuda';
  threads: number;
  highPassHz: number | undefined;
  startup: 'mirror' | 'none';
  guard: boolean;
  tools: FfmpegTools;
}

export type ToThread =
  | {
      type: 'job';
      id: number;
      inputPath: string;
      outputPath: string;
      format: AudioFormat;
      attenuationLimitDb: number | undefined;
    }
  | { type: 'cancel'; id: number };

export interface SerializedError {
  name: string;
  message: string;
}

export type FromThread =
  | { type: 'ready' }
  | { type: 'load-failed'; error: SerializedError }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; durationSeconds: number; channels: number; sampleRate: number }
  | { type: 'failed'; id: number; error: SerializedError };

export function serializeError(err: unknown): SerializedError {
  const e = err instanceof Error ? err : new Error(String(err));
  return { name: e.name, message: e.message };
}
