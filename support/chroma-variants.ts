import { MIN_HZ, type PeakShaping } from '../src/analysis/chroma.ts';
import { subtractPartials } from './chroma-partials.ts';

/**
 * The chroma front ends the key benches compare (bench/analyze-key.ts, analyze-key-time.ts;
 * docs/analysis.md, "Key"), composed into the product's accumulator as its `shaping`. Unset fields
 * are the product's own choice.
 */
export interface ChromaVariant {
  /** A peak must exceed its local mean this many times to count (0: every peak; the product's 1.5). */
  peakContrast?: number;
  /** Divide magnitudes by their local mean raised to this power (0 = off, 1 = full whitening). */
  whiten?: number;
  /** A peak's magnitude, or log(1 + 100·mag/frame max) (Müller's log compression). */
  weight?: 'magnitude' | 'log';
  /** Sub-harmonic summation (Gómez 2006 HPCP): a peak also adds to f/2..f/N with weight decay^(h-1). */
  harmonics?: number;
  harmonicDecay?: number;
  /** Peaks above this frequency are ignored (the product's 5 kHz). */
  maxHz?: number;
  /** Harmonic subtraction (support/chroma-partials.ts) with this decay; 0 = off. */
  partialDecay?: number;
}

export function chromaVariant(v: ChromaVariant): PeakShaping {
  const contrast = v.peakContrast ?? 1.5;
  const whiten = v.whiten ?? 0;
  const log = v.weight === 'log';
  const harmonics = v.harmonics ?? 1;
  const decay = v.harmonicDecay ?? 0.6;
  const partialDecay = v.partialDecay ?? 0;
  return {
    ...(v.maxHz !== undefined ? { maxHz: v.maxHz } : {}),
    counts: (magnitude, localMean) => !(contrast > 0 && magnitude < contrast * localMean),
    weight: (amp, localMean, frameMax) => {
      let a = whiten > 0 ? amp / (localMean + 1e-9) ** whiten : amp;
      if (log) a = Math.log1p((100 * a) / (whiten > 0 ? 1 : frameMax));
      return a;
    },
    ...(partialDecay > 0 ? { adjust: (hz, amp, n) => subtractPartials(hz, amp, n, partialDecay) } : {}),
    ...(harmonics > 1
      ? {
          spread: (hz, amp, add) => {
            for (let h = 1; h <= harmonics; h++) {
              const f = hz / h;
              if (h > 1 && f < MIN_HZ) break;
              add(f, amp * decay ** (h - 1));
            }
          },
        }
      : {}),
  };
}
