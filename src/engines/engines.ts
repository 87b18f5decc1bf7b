import type { AudioFormat, StemName } from '../domain/vocabulary.ts';
import type { SeparateRequest } from '../separation/separate-request.ts';
import type { BeatsAndChords } from '../analysis/beats-and-chords.ts';

export interface DenoiseRequest {
  inputPath: string;
  outputPath: string;
  format: AudioFormat;
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
  /** Beats, downbeats and chords; absent from an engine that does not find them. */
  detail?: BeatsAndChords;
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
  /** Runs the model the request names (the one its job stored), in a warm process of that model.
   * `resumedAt`: segments an interrupted run's checkpoint had finished (0: none). */
  separate(req: SeparateRequest): Promise<{ files: Partial<Record<StemName, string>>; resumedAt?: number }>;
  denoise(req: DenoiseRequest): Promise<void>;
  analyze(req: AnalyzeRequest): Promise<AnalyzeResult>;
  /** Names of the installed models that gate features (e.g. six stems). */
  hasModel(name: string): boolean;
  close(): Promise<void>;
}
