import type { StemName } from '../separation/stems.ts';
import type { OutputTypeValue } from '../domain/vocabulary.ts';

export type EngineFormat = 'mp3' | 'wav' | 'flac';

export type EngineStem = StemName;

export interface SeparateRequest {
  inputPath: string;
  outDir: string;
  /** What was asked for: the model registry says which model serves it. */
  outputType: OutputTypeValue;
  /** The stems to write (the output type's, or fewer). */
  stems: EngineStem[];
  format: EngineFormat;
  quality: 'FAST' | 'BALANCED' | 'BEST';
  /** Reported after each segment, once it is kept in `checkpointDir` (when given). */
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
  /** Keep finished segments there and resume from what an interrupted run kept (the job's stage). */
  checkpointDir?: string;
}

export interface DenoiseRequest {
  inputPath: string;
  outputPath: string;
  format: EngineFormat;
  /** Most noise reduction allowed, dB; undefined = no limit. */
  attenuationLimitDb?: number;
  onProgress?: (fraction: number) => void;
  signal?: AbortSignal;
}

/** BPM and key (src/analysis/), with how sure each is; an engine without confidences leaves them out. */
export interface AnalyzeResult {
  bpm: number | null;
  key: string | null;
  tempoConfidence?: number | null;
  keyConfidence?: number | null;
}

export interface AnalyzeRequest {
  mixPath: string;
  drumsPath?: string;
  bassPath?: string;
  harmonicPaths?: string[];
}

/**
 * The audio engines a worker process uses, created on first use and kept warm (ONNX sessions load
 * once per process). Each runs its heavy work off the event loop.
 */
export interface Engines {
  /** `resumedAt`: segments an interrupted run's checkpoint had finished (0: none). */
  separate(req: SeparateRequest): Promise<{ files: Partial<Record<EngineStem, string>>; resumedAt?: number }>;
  denoise(req: DenoiseRequest): Promise<void>;
  analyze(req: AnalyzeRequest): Promise<AnalyzeResult>;
  /** Names of the installed models that gate features (e.g. six stems). */
  hasModel(name: string): boolean;
  close(): Promise<void>;
}
