import { estimateTuning, foldChroma } from './chroma.ts';
import { chromaContrast, estimateKey, type KeyEstimate, keyConfidenceOf } from './key.ts';
import { estimateKeyWithModel, type ModelKey } from './key-model.ts';
import { KEY_SEMITONES } from './key-spectrogram.ts';

/**
 * The tonality gate. Tonality is the larger of two coefficients of variation of the 12-bin chroma
 * of the peaks that stand out of their neighbourhood (chroma.ts; scale-invariant, so loudness does
 * not matter): the whole input's, and the mean of each frame's less FRAME_CONTRAST_OFFSET. Set from
 * atonal input only: white, brown and pink noise measure up to 0.31, a real noise recording 0.45,
 * the musdb drum stem 0.40-0.46 (2-6 s); the gate sits above them. Every labelled excerpt of the
 * real-music set passes, 2 s ones included (lowest 0.53). Below MIN_TONALITY the key is null.
 * Measurements in docs/analysis.md.
 */
export const MIN_TONALITY = 0.5;
export const FRAME_CONTRAST_OFFSET = 0.05;
/**
 * Below the tonality gate, the learned model's key is reported when its probability reaches this.
 * Set from what the gate exists to stop, never from music: white, pink and brown noise (2-30 s),
 * 2 s windows of the musdb drum stem and the freesound noise recording read 0.06-0.12 (1/24 =
 * 0.04 is no idea). A first threshold, 0.35, was set above rendered atonal note soups (95th
 * percentile 0.33), which pass the gate anyway, and never fired on the real set's drum mixes
 * (docs/analysis.md, "The learned key model").
 */
export const MODEL_MIN_PROBABILITY = 0.2;

/** What the analyser's accumulators hold once the input has been read. */
export interface KeyInputs {
  /** Sum of the inputs' 10-cent chroma histograms (ChromaAccumulator.fineHistogram). */
  fine: Float64Array;
  /** Mean over inputs of each one's mean frame contrast (ChromaAccumulator.contrastTotal / frames). */
  frameContrast: number;
  /** Tuned semitone spectrogram (frames x 72) for a tuning: KeySpectrogram.semitones, stems summed. */
  spectrogram: (tuning: number) => Float32Array;
  /** A candidate model file instead of the shipped one (benchmarks). */
  modelPath?: string;
}

export interface KeyReading {
  key: KeyEstimate | ModelKey | null;
  /** 0-1; null with `key`. */
  confidence: number | null;
  /** Which method named the key. */
  method: 'model' | 'profile' | null;
  /** Both methods' answers, whichever was reported (the profile's is null below the gate). */
  profile: KeyEstimate | null;
  model: ModelKey | null;
  tuning: number;
  /** The tuned 12-bin chroma (sums to the histogram's total). */
  chroma: Float64Array;
  contrast: number;
  tonality: number;
}

/**
 * Reads the key. Where the chroma passes the tonality gate, the profile method's key (it measured
 * better than the learned model on clean real music, 30 s and 2 s alike); below the gate (noise,
 * drums alone, or music drowned by drums), the learned model's key when it is confident enough,
 * with its probability as the confidence; else no key.
 */
export async function readKey(inputs: KeyInputs): Promise<KeyReading> {
  const tuning = estimateTuning(inputs.fine);
  const chroma = foldChroma(inputs.fine, tuning);
  const contrast = chromaContrast(chroma);
  const tonality = Math.max(contrast, inputs.frameContrast - FRAME_CONTRAST_OFFSET);
  const tonal = tonality >= MIN_TONALITY;
  const profile = tonal ? estimateKey(chroma) : null;
  const spectrogram = inputs.spectrogram(tuning);
  const model = spectrogram.length >= KEY_SEMITONES ? await estimateKeyWithModel(spectrogram, inputs.modelPath) : null;
  const base = { profile, model, tuning, chroma, contrast, tonality };
  if (profile)
    return { ...base, key: profile, confidence: keyConfidenceOf(profile, tonality, MIN_TONALITY), method: 'profile' };
  if (!tonal && model && model.probability >= MODEL_MIN_PROBABILITY)
    return { ...base, key: model, confidence: model.probability, method: 'model' };
  return { ...base, key: null, confidence: null, method: null };
}
