import type { ExecutionProvider } from '../models/registry.ts';
import type { AudioFormat } from '../domain/vocabulary.ts';
import type { FfmpegTools } from '../audio/tools.ts';
import type { RemoteError, RpcReply } from '../offload/rpc.ts';

/** Messages between DenoiseEngine (caller's thread) and its worker thread (engine-thread.ts). */

export interface EngineThreadData {
  modelDir: string;
  executionProvider: ExecutionProvider;
  threads: number;
  highPassHz: number | undefined;
  startup: 'mirror' | 'none';
  guard: boolean;
  tools: FfmpegTools;
}

/** One file to clean: a call on the offload channel. */
export interface DenoiseCall {
  inputPath: string;
  outputPath: string;
  format: AudioFormat;
  /** Most noise reduction allowed, dB; undefined = no limit. */
  attenuationLimitDb: number | undefined;
}

export interface DenoiseReply {
  durationSeconds: number;
  channels: number;
  sampleRate: number;
}

export type FromThread = { type: 'ready' } | { type: 'load-failed'; error: RemoteError } | RpcReply<DenoiseReply>;
