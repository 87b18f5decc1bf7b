import type { FfmpegTools } from '../audio/tools.ts';
import type { SeparateRequest, SeparateResult } from './separate-file.ts';
import type { ExecutionProvider } from './session-options.ts';
import type { GraphRewrites } from './prepared-model.ts';

/** What the separation process needs to load its model (the first message it receives). */
export interface EngineInit {
  modelPath: string;
  /** Expected sha256 of the model file; null skips the check (operator-supplied weights). */
  sha256: string | null;
  /** Where the verified-checksum cache lives (the models directory). */
  cacheDir?: string;
  /** The network's sources, in output order (from the model registry). */
  sources: string[];
  /** Run the rewritten copy of the graph (prepared-model.ts). */
  rewriteGraph: boolean;
  executionProvider: ExecutionProvider;
  threads: number;
  tools: FfmpegTools;
}

export type ToEngine =
  | { type: 'init'; init: EngineInit }
  | { type: 'separate'; id: number; request: SeparateRequest }
  | { type: 'cancel'; id: number };

export type FromEngine =
  | { type: 'ready'; loadMs: number; rewrites: GraphRewrites }
  | { type: 'load-error'; message: string }
  | { type: 'progress'; id: number; fraction: number }
  | { type: 'done'; id: number; result: SeparateResult }
  | { type: 'error'; id: number; message: string; aborted: boolean };
