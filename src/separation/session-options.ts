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
 * `bench/separate.ts`; figures in docs/separation.md).
 *
 * The graph has one fixed input shape, so the memory pattern (a pre-planned layout of every
 * intermediate tensor, computed on the first run) serves every later run. With the CPU arena on as
 * well, the arena first grows tensor by tensor on the first run and then has to find one block for
 * the whole pattern, so it holds both (about 5 GB). With the arena off the pattern is one plain
 * allocation per run: the whole pipeline peaks at 3.4 GB on 60 s and 2.94 GB on 10 minutes, faster
 * than the arena. (Pattern off too was measured: same speed, higher exact peak, 3.69 GB.)
 * Sequential execution: the graph is a chain, parallel mode only adds scheduling threads.
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
    // Flush denormal floats to zero: near-silent activations otherwise hit x86's slow denormal
    // path. Measured 3.85 -> 3.12 s per segment; values below 1e-38 do not change the audio.
    extra: { session: { set_denormal_as_zero: '1' } },
  };
}
