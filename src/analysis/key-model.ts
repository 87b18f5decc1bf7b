import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { formatKey, type Key } from './key-names.ts';
import { KEY_SEMITONES } from './key-spectrogram.ts';
import { modelSession, type ShippedModel } from './model-session.ts';

/**
 * The learned key model: a 24 k-parameter convolutional network trained only on rendered General
 * MIDI pieces (tools/key-model/, which rebuilds it), shipped beside this file (~100 kB).
 */
export const KEY_MODEL_PATH = fileURLToPath(new URL('../../models/key-model.onnx', import.meta.url));
/** sha256 of the shipped model; `bash tools/key-model/build.sh` prints the rebuilt file's. */
export const KEY_MODEL_SHA256 = '7f9a8508287a5ee3bebb1ec201428e492070d9f23386d3413fc11aca754cb784';

export interface ModelKey extends Key {
  name: string;
  /** The winning key's probability (1/24 = no idea, 1 = certain). */
  probability: number;
  /** All 24 probabilities: C major..B major, then C minor..B minor. */
  probabilities: number[];
}

const SHIPPED: ShippedModel = { path: KEY_MODEL_PATH, sha256: KEY_MODEL_SHA256, pinnedAs: 'KEY_MODEL_SHA256' };

/**
 * The key of a semitone spectrogram (KeySpectrogram.semitones, frames x 72), or null with no frames.
 * `modelPath` is for benchmarks of candidate models.
 */
export async function estimateKeyWithModel(
  spectrogram: Float32Array,
  modelPath = KEY_MODEL_PATH,
): Promise<ModelKey | null> {
  const frames = spectrogram.length / KEY_SEMITONES;
  if (frames < 1) return null;
  const s = await modelSession(modelPath, SHIPPED);
  const out = await s.run({ spec: new ort.Tensor('float32', spectrogram, [1, frames, KEY_SEMITONES]) });
  const probabilities = Array.from(out.probs!.data as Float32Array);
  let best = 0;
  for (let i = 1; i < 24; i++) if (probabilities[i]! > probabilities[best]!) best = i;
  const key: Key = { tonic: best % 12, mode: best < 12 ? 'major' : 'minor' };
  return { ...key, name: formatKey(key), probability: probabilities[best]!, probabilities };
}
