import * as ort from 'onnxruntime-node';
import { DemucsSpectrogram } from './spectrogram.ts';
import { HTDEMUCS_SEGMENT_FRAMES, HTDEMUCS_SPEC_BINS, HTDEMUCS_SPEC_FRAMES } from './htdemucs-shapes.ts';
import { htdemucsSessionOptions, type SessionTuning } from './session-options.ts';
import { explainProviderError } from './execution-provider.ts';

/** Time spent in one segment, for the benchmark's "where the time goes". */
export interface SegmentTimings {
  dspMs: number;
  modelMs: number;
}

/**
 * HTDemucs on one training-length segment: spectrogram in, network, inverse spectrogram of the
 * spectral branch added to the time branch. One instance holds one onnxruntime session and is
 * meant to live for many jobs (loading costs a few seconds and about 500 MB). The four- and the
 * six-source networks differ only in how many sources they output.
 */
export class SegmentModel {
  readonly segmentFrames = HTDEMUCS_SEGMENT_FRAMES;
  readonly timings: SegmentTimings = { dspMs: 0, modelMs: 0 };
  private readonly specInput: Float32Array;
  /**
   * Output buffers allocated once and handed to every run as pre-allocated outputs: otherwise each
   * run returns 55 MB of fresh arrays that linger until a garbage collection, which showed up as a
   * few hundred MB of peak RSS on long inputs.
   */
  private readonly specOutput: ort.Tensor;
  private readonly waveOutput: ort.Tensor;

  /**
   * When the model runs as several sessions (prepared-model.ts), the tensors one part hands to the
   * next, allocated once like the outputs (the skip connections: 110 MB for HTDemucs).
   */
  private readonly handOver: Record<string, ort.Tensor>[];

  private constructor(
    /** The model's parts, run one after the other; the first reads the graph's inputs, the last writes its outputs. */
    private readonly sessions: readonly ort.InferenceSession[],
    private readonly spectrogram: DemucsSpectrogram,
    /** Source names in the network's output order. */
    readonly sources: readonly string[],
  ) {
    this.specInput = new Float32Array(spectrogram.specSize(2));
    this.handOver = sessions.slice(0, -1).map((s) => preallocatedOutputs(s));
    const count = sources.length;
    this.specOutput = new ort.Tensor('float32', new Float32Array(count * spectrogram.specSize(2)), [
      1,
      count,
      4,
      HTDEMUCS_SPEC_BINS,
      HTDEMUCS_SPEC_FRAMES,
    ]);
    this.waveOutput = new ort.Tensor('float32', new Float32Array(count * 2 * HTDEMUCS_SEGMENT_FRAMES), [
      1,
      count,
      2,
      HTDEMUCS_SEGMENT_FRAMES,
    ]);
  }

  /**
   * @param model the model file, or its parts in order (prepared-model.ts).
   * @param sources the network's sources in output order, as the model registry lists them.
   */
  static async load(
    model: string | readonly string[],
    sources: readonly string[],
    tuning: SessionTuning,
  ): Promise<SegmentModel> {
    const paths = typeof model === 'string' ? [model] : model;
    const modelPath = paths.join(' + ');
    const sessions: ort.InferenceSession[] = [];
    const releaseAll = () => Promise.all(sessions.map((s) => s.release()));
    for (const path of paths) {
      const created = await ort.InferenceSession.create(path, htdemucsSessionOptions(tuning)).catch(async (err) => {
        await releaseAll();
        throw explainProviderError(tuning.executionProvider, err);
      });
      sessions.push(created);
    }
    const first = sessions[0];
    const session = sessions.at(-1);
    const [mixIn, specIn] = first?.inputNames ?? [];
    if (!first || !session || !mixIn || !specIn || session.outputNames.length !== 2) {
      await releaseAll();
      throw new Error(`${modelPath} does not look like an HTDemucs export (inputs ${first?.inputNames.join(', ')})`);
    }
    // The time branch is [1, sources, 2, frames]: a registry entry with the wrong source list
    // would otherwise surface as an opaque onnxruntime shape error at the first segment.
    const wave = session.outputMetadata[1];
    const outputs = wave?.isTensor ? wave.shape[1] : undefined;
    if (typeof outputs === 'number' && outputs !== sources.length) {
      await releaseAll();
      throw new Error(
        `${modelPath} outputs ${outputs} sources, but its registry entry lists ${sources.length} (${sources.join(', ')})`,
      );
    }
    return new SegmentModel(sessions, await DemucsSpectrogram.create(HTDEMUCS_SEGMENT_FRAMES), sources);
  }

  /**
   * Separates one segment. `mix` is planar stereo, `[channel][segmentFrames]` in one array; the
   * result is `[source][channel][segmentFrames]` in one array (sources in `this.sources` order),
   * valid until the next call (the buffer is reused).
   */
  async separate(mix: Float32Array): Promise<Float32Array> {
    const n = this.segmentFrames;
    const t0 = performance.now();
    this.spectrogram.analyze([mix.subarray(0, n), mix.subarray(n, 2 * n)], this.specInput);
    const t1 = performance.now();
    const first = this.sessions[0]!;
    const last = this.sessions.at(-1)!;
    const [mixName, specName] = first.inputNames as [string, string];
    const [specOutName, waveOutName] = last.outputNames as [string, string];
    const tensors: Record<string, ort.Tensor> = {
      [mixName]: new ort.Tensor('float32', mix, [1, 2, n]),
      [specName]: new ort.Tensor('float32', this.specInput, [1, 4, HTDEMUCS_SPEC_BINS, HTDEMUCS_SPEC_FRAMES]),
    };
    for (let i = 0; i < this.sessions.length - 1; i++) {
      const part = this.sessions[i]!;
      const feeds = Object.fromEntries(part.inputNames.map((name) => [name, tensors[name]!]));
      Object.assign(tensors, await part.run(feeds, this.handOver[i]!));
    }
    const out = await last.run(Object.fromEntries(last.inputNames.map((name) => [name, tensors[name]!])), {
      [specOutName]: this.specOutput,
      [waveOutName]: this.waveOutput,
    });
    const t2 = performance.now();
    const spec = out[specOutName]!.data as Float32Array;
    const wave = out[waveOutName]!.data as Float32Array;
    this.spectrogram.synthesizeAdd(spec, this.sources.length * 2, wave);
    this.timings.dspMs += t1 - t0 + (performance.now() - t2);
    this.timings.modelMs += t2 - t1;
    return wave;
  }

  async dispose(): Promise<void> {
    this.spectrogram.dispose();
    for (const s of this.sessions) await s.release();
  }
}

const TYPED_ARRAYS = {
  float32: Float32Array,
  int64: BigInt64Array,
  int32: Int32Array,
  uint8: Uint8Array,
  int8: Int8Array,
  bool: Uint8Array,
} as const;

/** Output tensors of a session, allocated once from its declared static shapes; outputs of another shape or type are left to onnxruntime. */
function preallocatedOutputs(session: ort.InferenceSession): Record<string, ort.Tensor> {
  const out: Record<string, ort.Tensor> = {};
  for (const m of session.outputMetadata) {
    if (!m.isTensor || !m.shape.every((d) => typeof d === 'number' && d >= 0)) continue;
    const dims = m.shape as number[];
    const type = m.type as keyof typeof TYPED_ARRAYS;
    const array = TYPED_ARRAYS[type];
    if (!array) continue;
    const size = dims.reduce((a, b) => a * b, 1);
    out[m.name] = new ort.Tensor(type, new array(size) as Float32Array, dims);
  }
  return out;
}
