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

  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly spectrogram: DemucsSpectrogram,
    /** Source names in the network's output order. */
    readonly sources: readonly string[],
  ) {
    this.specInput = new Float32Array(spectrogram.specSize(2));
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

  /** @param sources the network's sources in output order, as the model registry lists them. */
  static async load(modelPath: string, sources: readonly string[], tuning: SessionTuning): Promise<SegmentModel> {
    const session = await ort.InferenceSession.create(modelPath, htdemucsSessionOptions(tuning)).catch((err) => {
      throw explainProviderError(tuning.executionProvider, err);
    });
    const [mixIn, specIn] = session.inputNames;
    if (!mixIn || !specIn || session.outputNames.length !== 2) {
      await session.release();
      throw new Error(`${modelPath} does not look like an HTDemucs export (inputs ${session.inputNames.join(', ')})`);
    }
    // The time branch is [1, sources, 2, frames]: a registry entry with the wrong source list
    // would otherwise surface as an opaque onnxruntime shape error at the first segment.
    const wave = session.outputMetadata[1];
    const outputs = wave?.isTensor ? wave.shape[1] : undefined;
    if (typeof outputs === 'number' && outputs !== sources.length) {
      await session.release();
      throw new Error(
        `${modelPath} outputs ${outputs} sources, but its registry entry lists ${sources.length} (${sources.join(', ')})`,
      );
    }
    return new SegmentModel(session, await DemucsSpectrogram.create(HTDEMUCS_SEGMENT_FRAMES), sources);
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
    // load() checked that there are two of each.
    const [mixName, specName] = this.session.inputNames as [string, string];
    const [specOutName, waveOutName] = this.session.outputNames as [string, string];
    const out = await this.session.run(
      {
        [mixName]: new ort.Tensor('float32', mix, [1, 2, n]),
        [specName]: new ort.Tensor('float32', this.specInput, [1, 4, HTDEMUCS_SPEC_BINS, HTDEMUCS_SPEC_FRAMES]),
      },
      { [specOutName]: this.specOutput, [waveOutName]: this.waveOutput },
    );
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
    await this.session.release();
  }
}
