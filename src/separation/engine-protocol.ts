import type { FfmpegTools } from '../audio/tools.ts';
import type { SeparateRequest, SeparateResult } from './separate-file.ts';
import type { ExecutionProvider } from './session-options.ts';

/** workerData of the separation thread. */
export interface EngineThreadData {
  modelPath: string;
  /** Expected sha256 of the model file; null skips the check (operator-supplied weights). */
  sha256: string | null;
  /** Where the verified-checksum cache lives (the models directory). */
  cacheDir?: string;
  executionProvider: ExecutionProvider;
  threads: number;
  tools: FfmpegTools;
}

export type ToThread = { type: 'separate'; id: number; request: SeparateRequest } | { type: 'cancel'; id: number };

export type FromThread =
  | { type: 'ready'; loadMs: number }
  | { type: 'load-error'; message: string }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; result: SeparateResult }
  | { type: 'error'; id: number; message: string; aborted: boolean };
