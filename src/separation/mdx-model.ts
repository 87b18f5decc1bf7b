import * as ort from 'onnxruntime-node';
import { explainProviderError } from './execution-provider.ts';
import type { MdxParams } from './mdx-params.ts';
import type { SessionTuning } from './session-options.ts';

/**
 * An MDX-Net ONNX network: spectrograms `[batch, 4, dim_f, dim_t]` in, the primary stem's
 * spectrograms of the same shape out. One instance holds one onnxruntime session for many jobs.
 */
export class MdxModel {
  readonly timings = { modelMs: 0 };

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly shape: Pick<MdxParams, 'dimF' | 'dimT'>,
    /** Chunks one run may take: 1 where the graph's batch dimension is fixed to 1. */
    readonly maxBatch: number,
  ) {}

  /** Loads `path`; refuses a graph whose input is not the shape its model card says. */
  static async load(path: string, shape: Pick<MdxParams, 'dimF' | 'dimT'>, tuning: SessionTuning): Promise<MdxModel> {
    const session = await ort.InferenceSession.create(path, {
      executionProviders: (tuning.providers ?? ['cpu']).map((p) => (p === 'cuda' ? { name: 'cuda', deviceId: 0 } : p)),
      graphOptimizationLevel: 'all',
      executionMode: 'sequential',
      ...(tuning.threads > 0 ? { intraOpNumThreads: tuning.threads } : {}),
      interOpNumThreads: 1,
      extra: { session: { set_denormal_as_zero: '1' } },
    }).catch((err) => {
      throw explainProviderError(tuning.executionProvider, err);
    });
    const input = session.inputMetadata[0];
    const dims = input?.isTensor ? input.shape : [];
    const [batch, channels, bins, frames] = dims;
    const fixed = (d: unknown, want: number) => typeof d !== 'number' || d === want;
    if (
      session.inputNames.length !== 1 ||
      dims.length !== 4 ||
      !fixed(channels, 4) ||
      !fixed(bins, shape.dimF) ||
      !fixed(frames, shape.dimT)
    ) {
      await session.release();
      throw new Error(
        `the model's input is [${dims.join(', ')}], but its model card says [batch, 4, ${shape.dimF}, ${shape.dimT}] (mdx_dim_f_set, 2 ** mdx_dim_t_set)`,
      );
    }
    return new MdxModel(session, shape, typeof batch === 'number' && batch > 0 ? batch : Number.POSITIVE_INFINITY);
  }

  /** Runs `count` chunks' spectrograms (one array, `count * 4 * dim_f * dim_t` floats); returns the output's. */
  async run(spec: Float32Array, count: number): Promise<Float32Array> {
    const t0 = performance.now();
    const name = this.session.inputNames[0]!;
    const feeds = { [name]: new ort.Tensor('float32', spec, [count, 4, this.shape.dimF, this.shape.dimT]) };
    const out = await this.session.run(feeds);
    const first = out[this.session.outputNames[0]!]!;
    this.timings.modelMs += performance.now() - t0;
    const data = first.data as Float32Array;
    if (data.length !== spec.length)
      throw new Error(`the model answered ${data.length} values for an input of ${spec.length}`);
    return data;
  }

  async dispose(): Promise<void> {
    await this.session.release();
  }
}
