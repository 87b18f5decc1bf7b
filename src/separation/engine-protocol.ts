import type { FfmpegTools } from '../audio/tools.ts';
import type { RpcCall, RpcReply } from '../offload/rpc.ts';
import type { SeparateCall, SeparateResult } from './separate-request.ts';
import type { ExecutionProvider } from './session-options.ts';
import type { QualityValue } from '../domain/vocabulary.ts';
import type { GraphRewrites } from './prepared-model.ts';
import type { SeparationFamily } from '../models/registry.ts';
import type { MdxParams } from './mdx-params.ts';

/** What the separation process needs to load its model (the first message it receives). */
export interface EngineInit {
  modelPath: string;
  /** Expected sha256 of the model file; null skips the check (operator-supplied weights). */
  sha256: string | null;
  /** Where the prepared copies and the verified-checksum record live (Config.cacheDir). */
  cacheDir: string;
  /** The family that runs the model: its own pre- and post-processing around the session. */
  family: SeparationFamily;
  /** MDX-Net: the model card's shape and settings. */
  mdx?: MdxParams;
  /** The network's sources, in output order (from the model registry). */
  sources: string[];
  /** The registry's rate: input decoded and stems encoded at it. */
  sampleRate: number;
  /** HTDemucs: the registry's segment, in frames (a graph traced for another length is refused at load); MDX-Net: its chunk. */
  segmentFrames: number;
  /** The onnxruntime providers the registry lists for this model on `executionProvider`. */
  providers: readonly string[];
  /** The tier the first job is expected to ask for: FAST loads only FAST's model at start. */
  firstTier?: QualityValue;
  executionProvider: ExecutionProvider;
  threads: number;
  tools: FfmpegTools;
}

/** The first message sets the process up; then separations are calls on the offload channel. */
export type ToEngine = { type: 'init'; init: EngineInit } | RpcCall<SeparateCall>;

export type FromEngine =
  | { type: 'ready'; loadMs: number; rewrites: GraphRewrites }
  | { type: 'load-error'; message: string }
  | RpcReply<SeparateResult>;
