import { estimateTuning, foldChroma, pitchGrid } from './chroma.ts';
import { chromaContrast, estimateKey, type KeyEstimate, keyConfidenceOf } from './key.ts';
import { estimateKeyWithModel, type ModelKey } from './key-model.ts';
import type { Key } from './key-names.ts';
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
/**
 * Below the gate and below MODEL_MIN_PROBABILITY, a key both methods name is still reported: tonal
 * music under loud hiss (a D major quartet at 14 dB below white noise: profile D major, score 0.67,
 * model D major, p 0.14) keeps a tonal centre that two independent readings agree on. Both must be
 * past what chance gives on input without a tonal centre: the model's probability at least
 * AGREED_MIN_PROBABILITY (noise and drum stems read 0.06-0.12, a chromatic cluster 0.097 where the
 * two happened to agree) and the profile's correlation at least AGREED_MIN_SCORE (that cluster:
 * 0.39; noise and drums 0.58-0.70, but the two methods named different keys on every one measured).
 * The confidence is then the model's probability: low, as the evidence is (docs/analysis.md).
 */
export const AGREED_MIN_PROBABILITY = 0.1;
export const AGREED_MIN_SCORE = 0.5;

/**
 * No tonal centre (issue 44). Above the tonality gate, atonal music and speech pass too: a few
 * notes or harmonics at a time stand out of every frame. An input long enough to judge
 * (CENTRE_MIN_SECONDS of chroma frames: a 10 s input has 9.7 s) has no tonal centre, and no key,
 * when either
 *  - its pitches are not held: under CENTRE_MIN_GRID of its peaks' energy sits on one semitone
 *    grid (pitchGrid). Speech glides: LibriSpeech and espeak-ng speech 0.01-0.085 over 10-45 s;
 *    music is played on a tuning: real recordings 0.15-0.90 (30 s) and from 0.116 (10 s),
 *    rendered pieces and note soups 0.24-0.89; or
 *  - no key stands out: the learned model's probability for its key is under
 *    CENTRE_MAX_PROBABILITY (1/24 is no idea) and either the profile method names a key unrelated
 *    to the model's (not the same, a fifth, the relative or the parallel: two readings of one
 *    centre differ by these) or the whole input's chroma is flat (contrast under
 *    CENTRE_FLAT_CONTRAST: every pitch class about as often). Note soups, tone rows and
 *    Schoenberg/Webern read 0.06-0.31; real tonal recordings went as low as 0.10, with the two
 *    methods' keys related and a contrast of 0.37 (real excerpts' lowest contrast: 0.24).
 * Where the key stays on weak evidence (the model under CENTRE_WEAK_PROBABILITY), the confidence is
 * no higher than the model's probability. Shorter inputs are not judged: at 2-5 s speech reads up
 * to 0.114 on the grid and real 2 s excerpts from 0.112, and tonal excerpts' model probabilities
 * fall to those of random notes. Figures and the sets: docs/analysis.md "No tonal centre".
 */
export const CENTRE_MIN_SECONDS = 9.5;
export const CENTRE_MAX_PROBABILITY = 0.1;
export const CENTRE_WEAK_PROBABILITY = 0.3;
export const CENTRE_MIN_GRID = 0.1;
export const CENTRE_FLAT_CONTRAST = 0.2;

/** Two readings of one tonal centre: the same key, a fifth apart, relative or parallel. */
export function relatedKeys(a: Key, b: Key): boolean {
  const d = (a.tonic - b.tonic + 12) % 12;
  if (a.mode === b.mode) return d === 0 || d === 5 || d === 7;
  if (d === 0) return true;
  return a.mode === 'major' ? d === 3 : d === 9;
}

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
  /** Seconds of chroma frames read; without it the input is not judged for a tonal centre. */
  seconds?: number;
}

export interface KeyReading {
  key: KeyEstimate | ModelKey | null;
  /** 0-1; null with `key`. */
  confidence: number | null;
  /** Which method named the key: the profile, the model, or both agreeing below the gate. */
  method: 'model' | 'profile' | 'agreed' | null;
  /** True where the input passed the gate but was judged to have no tonal centre (CENTRE_*). */
  noCentre: boolean;
  /** pitchGrid of the input's 10-cent histogram. */
  grid: number;
  /** Both methods' answers, whichever was reported (the profile's is null only without any chroma). */
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
 * better than the learned model on clean real music, 30 s and 2 s alike); its confidence is the
 * profile's (keyConfidenceOf), or the model's probability where the model names the same key and is
 * surer (two methods agreeing near the gate are not as unsure as the gate's factor alone says).
 * Below the gate (noise, drums alone, or music drowned by drums or hiss), the learned model's key
 * when it is confident enough, or a key both methods name (see AGREED_MIN_PROBABILITY), with the
 * model's probability as the confidence; else no key: the input has no tonal centre. Above the
 * gate, an input long enough to judge can have no tonal centre too (CENTRE_MIN_SECONDS).
 */
export async function readKey(inputs: KeyInputs): Promise<KeyReading> {
  const tuning = estimateTuning(inputs.fine);
  const chroma = foldChroma(inputs.fine, tuning);
  const contrast = chromaContrast(chroma);
  const tonality = Math.max(contrast, inputs.frameContrast - FRAME_CONTRAST_OFFSET);
  const tonal = tonality >= MIN_TONALITY;
  const profile = estimateKey(chroma);
  const spectrogram = inputs.spectrogram(tuning);
  const model = spectrogram.length >= KEY_SEMITONES ? await estimateKeyWithModel(spectrogram, inputs.modelPath) : null;
  const base = { profile, model, tuning, chroma, contrast, tonality, noCentre: false, grid: pitchGrid(inputs.fine) };
  const agreed = !!profile && !!model && profile.name === model.name;
  if (tonal && profile) {
    const judged = !!model && (inputs.seconds ?? 0) >= CENTRE_MIN_SECONDS;
    const weak = judged && model.probability < CENTRE_WEAK_PROBABILITY;
    const unheld = judged && base.grid < CENTRE_MIN_GRID;
    const noKey =
      judged &&
      model.probability < CENTRE_MAX_PROBABILITY &&
      (!relatedKeys(profile, model) || contrast < CENTRE_FLAT_CONTRAST);
    if (unheld || noKey) return { ...base, key: null, confidence: null, method: null, noCentre: true };
    const confidence = keyConfidenceOf(profile, tonality, MIN_TONALITY);
    return {
      ...base,
      key: profile,
      // Kept on weak evidence: no surer than the model is.
      confidence: weak
        ? Math.min(confidence, model.probability)
        : agreed
          ? Math.max(confidence, model.probability)
          : confidence,
      method: 'profile',
    };
  }
  if (model && model.probability >= MODEL_MIN_PROBABILITY)
    return { ...base, key: model, confidence: model.probability, method: 'model' };
  if (agreed && model.probability >= AGREED_MIN_PROBABILITY && profile.score >= AGREED_MIN_SCORE)
    return { ...base, key: model, confidence: model.probability, method: 'agreed' };
  return { ...base, key: null, confidence: null, method: null };
}
