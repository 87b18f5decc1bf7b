import type { SegmentSchedule } from './segment-plan.ts';
import type { Flip } from './test-time-augmentation.ts';
import type { QualityValue } from '../domain/vocabulary.ts';

export interface InferenceSettings {
  /** Fraction of each segment shared with the next one (Demucs' `overlap`). */
  overlap: number;
  /** Randomly shifted passes averaged (Demucs' `shifts`); 0 = one plain pass. Cost x max(1, shifts). */
  shifts: number;
  /**
   * Flipped passes averaged with each plain one (test-time-augmentation.ts): channels swapped,
   * polarity inverted, or both; absent = none. Cost x (1 + flips.length).
   */
  flips?: readonly Flip[];
  /** Seed of the random shifts (default 0): the same seed gives the same stems. */
  seed?: number;
  /** Where segments fall (segment-plan.ts): `even` (default) or Demucs' own offsets. */
  schedule?: SegmentSchedule;
}

/**
 * The inference settings behind each quality tier of the API, chosen by measurement (bench/separate-quality.ts; the SDR/time curve is in docs/separation.md).
 * The cost is the number of 7.8 s network runs: with the even schedule (segment-plan.ts),
 * `1 + ceil((length - 7.8 s) / ((1 - overlap) x 7.8 s))` per pass. On 60 s remixed from the labelled
 * MUSDB stems the even schedule scored at or above Demucs' own at every overlap (mean SDR +0.02 to
 * +0.04 dB), and overlaps 0.02, 0.05 and 0.25 all within 0.01 dB of each other (5.50 / 5.51 / 5.50),
 * so FAST takes the smallest overlap that keeps a cross-fade (0.02, 156 ms: 8 runs on 60 s against
 * 10 for BEST). No tier uses test-time augmentation: on the labelled 6 s clip and a 30 s remix of its
 * stems, shifts and flips moved mean SDR by -0.03..+0.11 dB, no setting by more than +0.06 on both,
 * at 2-4x the time. BEST keeps the reference's overlap (0.25), FAST runs FAST's int8 copy.
 */
export const QUALITY_SETTINGS: Record<QualityValue, InferenceSettings> = {
  FAST: { overlap: 0.02, shifts: 0 },
  BALANCED: { overlap: 0.15, shifts: 0 },
  BEST: { overlap: 0.25, shifts: 0 },
};
