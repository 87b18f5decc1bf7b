import { fileURLToPath } from 'node:url';
import ort from 'onnxruntime-node';
import { modelSession, type ShippedModel } from './model-session.ts';

/**
 * The learned beat model: a small temporal convolutional network (dilated 1-D convolutions, about
 * 20 k parameters) that reads the onset envelope's band energies and gives each onset frame a beat
 * probability (the beat activation), trained only on rendered pieces (tools/beat-model/, which
 * rebuilds it). The beat tracker's DP reads it instead of the onset novelty (beats-and-chords.ts).
 */
export const BEAT_MODEL_PATH = fileURLToPath(new URL('../../models/beat-model.onnx', import.meta.url));
/** sha256 of the shipped model; tools/beat-model/build.sh prints the rebuilt file's. */
export const BEAT_MODEL_SHA256 = 'c3e4fe3c7f6cf9041ca231847b2e0d4661b18896620aee7e92dd6892c9d90f90';

/** Log compression of the band energies, as the onset envelope's (log(1 + γ e)). */
const LOG_GAMMA = 1000;

/**
 * The model's input from OnsetEnvelope.modelBandFrames (frames x bands, linear magnitude sums):
 * per band, the log energy standardised over the piece (so level and EQ do not matter) and its
 * half-wave rectified difference over the previous frame divided by its RMS over the piece;
 * frames x (2 x bands), band-major within a frame.
 */
export function beatFeatures(bandFrames: Float32Array, bands: number): Float32Array {
  const n = Math.floor(bandFrames.length / bands);
  const out = new Float32Array(n * 2 * bands);
  const log = new Float32Array(n);
  for (let b = 0; b < bands; b++) {
    let mean = 0;
    for (let t = 0; t < n; t++) {
      log[t] = Math.log1p(LOG_GAMMA * bandFrames[t * bands + b]!);
      mean += log[t]!;
    }
    mean /= Math.max(1, n);
    let sq = 0;
    let dsq = 0;
    for (let t = 0; t < n; t++) {
      sq += (log[t]! - mean) ** 2;
      const d = t > 0 ? Math.max(0, log[t]! - log[t - 1]!) : 0;
      dsq += d * d;
    }
    const std = Math.sqrt(sq / Math.max(1, n)) + 1e-3;
    const rms = Math.sqrt(dsq / Math.max(1, n)) + 1e-3;
    for (let t = 0; t < n; t++) {
      const d = t > 0 ? Math.max(0, log[t]! - log[t - 1]!) : 0;
      out[t * 2 * bands + b] = (log[t]! - mean) / std;
      out[t * 2 * bands + bands + b] = d / rms;
    }
  }
  return out;
}

const SHIPPED: ShippedModel = { path: BEAT_MODEL_PATH, sha256: BEAT_MODEL_SHA256, pinnedAs: 'BEAT_MODEL_SHA256' };

/**
 * The beat activation (0-1 per onset frame) of the band energies, or null with fewer than two frames.
 * `modelPath` is for benchmarks of candidate models.
 */
export async function beatActivation(
  bandFrames: Float32Array,
  bands: number,
  modelPath = BEAT_MODEL_PATH,
): Promise<Float32Array | null> {
  const frames = Math.floor(bandFrames.length / bands);
  if (frames < 2) return null;
  const session = await modelSession(modelPath, SHIPPED);
  const x = beatFeatures(bandFrames, bands);
  const out = await session.run({ features: new ort.Tensor('float32', x, [1, frames, 2 * bands]) });
  return Float32Array.from(out.beat!.data as Float32Array);
}
