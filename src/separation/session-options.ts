import type { InferenceSession } from 'onnxruntime-node';

/** Where the model runs: onnxruntime's CPU provider, or CUDA on a GPU worker. */
export type ExecutionProvider = 'cpu' | 'cuda';

export interface SessionTuning {
  executionProvider: ExecutionProvider;
  /** Intra-op threads; 0 lets onnxruntime choose (one per physical core). */
  threads: number;
}

/**
 * onnxruntime session options for HTDemucs, chosen by measurement (`bench/separate-session.ts`,
 * figures in docs/separation.md).
 *
 * The graph has one fixed input shape, so the memory pattern (a pre-planned layout of every
 * intermediate tensor, computed on the first run) serves every later run. With the CPU arena on as
 * well, the arena first grows tensor by tensor on the first run and then has to find one block for
 * the whole pattern, so it holds both (about 5 GB). With the arena off the pattern is one plain
 * allocation per run, and peak memory is the pattern plus the weights (under 3 GB) at the arena's
 * speed. Sequential execution: the graph is a chain, parallel mode only adds scheduling threads.
 */
export function htdemucsSessionOptions(t: SessionTuning): InferenceSession.SessionOptions {
  return {
    executionProviders: t.executionProvider === 'cuda' ? ['cuda', 'cpu'] : ['cpu'],
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
    enableCpuMemArena: false,
    enableMemPattern: true,
    ...(t.threads > 0 ? { intraOpNumThreads: t.threads } : {}),
    interOpNumThreads: 1,
  };
}
