import type { Flip } from './test-time-augmentation.ts';

/** Quality tiers of the API and the inference settings behind them. */
export type QualityTier = 'FAST' | 'BALANCED' | 'BEST';

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
}

/** Network passes per segment position: `max(1, shifts)` shifted passes, each with its flips. */
export function passCount(s: InferenceSettings): number {
  return Math.max(1, s.shifts) * (1 + (s.flips?.length ?? 0));
}

/**
 * Chosen by measurement (bench/separate-quality.ts; the SDR/time curve is in docs/separation.md).
 * The cost is the number of 7.8 s network runs, proportional to `passCount / (1 - overlap)`. No
 * tier uses test-time augmentation: on the labelled 6 s clip and a 30 s remix of its stems, shifts
 * and flips moved mean SDR by -0.03..+0.11 dB, no setting by more than +0.06 on both, at 2-4x the
 * time. BEST keeps the reference's settings (overlap 0.25): its float stems equal the reference's
 * (mean SDR 4.99 / 4.99; the reference's 5.08 is its 16-bit writer clipping, ours as written 5.11).
 * FAST is the cheapest schedule, 0.02 dB below BEST in float (int8).
 */
export const QUALITY_SETTINGS: Record<QualityTier, InferenceSettings> = {
  FAST: { overlap: 0.05, shifts: 0 },
  BALANCED: { overlap: 0.15, shifts: 0 },
  BEST: { overlap: 0.25, shifts: 0 },
};
