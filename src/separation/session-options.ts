import type { InferenceSession } from 'onnxruntime-node';
import { type ExecutionProvider, separationModelFor, sessionProviders } from '../models/registry.ts';

export type { ExecutionProvider };

export interface SessionTuning {
  executionProvider: ExecutionProvider;
  /** Intra-op threads; 0 lets onnxruntime choose (one per physical core). */
  threads: number;
  /**
   * onnxruntime's providers, in order, as the model registry lists them for this model on
   * `executionProvider` (the engine passes them); absent: the four-source HTDemucs entry's.
   */
  providers?: readonly string[];
}

/**
 * onnxruntime session options for HTDemucs, chosen by measurement (`bench/separate-session.ts`,
 * `bench/separate.ts`; figures in docs/separation.md).
 *
 * CPU arena off and memory pattern off: every intermediate tensor is allocated when it is produced
 * and freed after its last use, so nothing is held between runs. The arena keeps the run's high
 * water mark (3.5 GB, and its first two runs are slow while it grows); the memory pattern plans all
 * tensors into one block per run (4.1 GB with huge pages). Off/off is fast only with the malloc
 * tunables of the separation process (engine-env.ts): 1.9 s per segment and a 2.6 GB session peak
 * here, against 7.1 s without them.
 * Sequential execution: the graph is a chain, parallel mode only adds scheduling threads.
 */
export function htdemucsSessionOptions(t: SessionTuning): InferenceSession.SessionOptions {
  return {
    // The registry's order (`HTDEMUCS_PROVIDERS` says why CUDA's list ends with 'cpu'); CUDA on the first device.
    executionProviders: (t.providers ?? sessionProviders(separationModelFor('FOUR_STEMS'), t.executionProvider)).map(
      (p) => (p === 'cuda' ? { name: 'cuda', deviceId: 0 } : p),
    ),
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    enableCpuMemArena: false,
    enableMemPattern: false,
    ...(t.threads > 0 ? { intraOpNumThreads: t.threads } : {}),
    interOpNumThreads: 1,
    // Flush denormal floats to zero: near-silent activations otherwise hit x86's slow denormal
    // path. Measured 3.85 -> 3.12 s per segment; values below 1e-38 do not change the audio.
    extra: { session: { set_denormal_as_zero: '1' } },
  };
}
