import {
  HTDEMUCS_SEGMENT_FRAMES,
  HTDEMUCS_SPEC_BINS,
  HTDEMUCS_SPEC_FRAMES,
} from '../../src/separation/htdemucs-shapes.ts';
import { getModelSpec } from '../../src/models/registry.ts';
import { encodeOnnxModel } from '../../support/onnx-writer.ts';

/** Sources of htdemucs_6s in output order (the registry's list). */
export const SIX_SOURCES = getModelSpec('htdemucs_6s')!.stems!;

/** Gain of each stand-in source; they add up to 1, so the stems add back up to the input. */
export const FAKE_GAINS: Record<string, number> = {
  drums: 0.1,
  bass: 0.15,
  other: 0.2,
  vocals: 0.25,
  guitar: 0.12,
  piano: 0.18,
};

/**
 * A FAKE six-source separation model: no htdemucs_6s weights can be obtained on this machine, so
 * this stand-in has exactly the real export's inputs and output shapes (a 7.8 s stereo segment and
 * its spectrogram in; a spectral branch of zeros and a time branch out) and "separates" by scaling:
 * source s = FAKE_GAINS[s] x the (normalised) input. It exercises everything around the network:
 * registry, pull, output shapes, six-stem rendering, the API's SIX_STEMS path.
 * `sources` other than 6 builds a model that contradicts the registry.
 */
export function fakeSixStemModel(sources = SIX_SOURCES.length): Buffer {
  const n = HTDEMUCS_SEGMENT_FRAMES;
  const spec = [1, 4, HTDEMUCS_SPEC_BINS, HTDEMUCS_SPEC_FRAMES];
  const gains = Float32Array.from({ length: sources }, (_, i) => FAKE_GAINS[SIX_SOURCES[i]!] ?? 0.1);
  return encodeOnnxModel({
    name: 'fake_htdemucs_6s',
    inputs: [
      { name: 'input', dims: [1, 2, n] },
      { name: 'spec', dims: spec },
    ],
    outputs: [
      { name: 'spec_out', dims: [1, sources, ...spec.slice(1)] },
      { name: 'wave_out', dims: [1, sources, 2, n] },
    ],
    initializers: [
      { name: 'axis1', dims: [1], data: BigInt64Array.of(1n) },
      { name: 'gains', dims: [1, sources, 1, 1], data: gains },
      { name: 'zeros', dims: [1, sources, 1, 1, 1], data: new Float32Array(sources) },
    ],
    nodes: [
      { op: 'Unsqueeze', inputs: ['input', 'axis1'], outputs: ['mix5'] },
      { op: 'Mul', inputs: ['mix5', 'gains'], outputs: ['wave_out'] },
      { op: 'Unsqueeze', inputs: ['spec', 'axis1'], outputs: ['spec5'] },
      { op: 'Mul', inputs: ['spec5', 'zeros'], outputs: ['spec_out'] },
    ],
  });
}
