import { formatKey, type Key } from './key-names.ts';
import { KEY_PROFILES, type KeyProfile } from './key-profiles.ts';

export interface KeyEstimate extends Key {
  name: string;
  /** Mean correlation of the winning key over the profiles used (-1..1). */
  score: number;
  /** Winning score minus the runner-up's: small values mean an ambiguous key. */
  margin: number;
}

/** Pearson correlation of `chroma` rotated to `tonic` with a 12-bin key `profile`. */
export function pearson(chroma: ArrayLike<number>, profile: readonly number[], tonic: number): number {
  let mx = 0;
  let my = 0;
  for (let i = 0; i < 12; i++) {
    mx += chroma[i]!;
    my += profile[i]!;
  }
  mx /= 12;
  my /= 12;
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < 12; i++) {
    const x = chroma[(i + tonic) % 12]! - mx;
    const y = profile[i]! - my;
    sxy += x * y;
    sxx += x * x;
    syy += y * y;
  }
  return sxx > 0 && syy > 0 ? sxy / Math.sqrt(sxx * syy) : 0;
}

/**
 * Key by the Krumhansl-Schmuckler method (Krumhansl 1990): Pearson correlation of the chromagram
 * with each of the 24 rotations of a key profile. With several profiles the correlations are
 * averaged per key, which measured better than any single profile (see docs/analysis.md).
 */
export function estimateKey(
  chroma: ArrayLike<number>,
  profiles: readonly KeyProfile[] = KEY_PROFILES,
): KeyEstimate | null {
  let total = 0;
  for (let i = 0; i < 12; i++) total += chroma[i]!;
  if (!(total > 0)) return null;
  const scores: { key: Key; score: number }[] = [];
  for (const mode of ['major', 'minor'] as const) {
    for (let tonic = 0; tonic < 12; tonic++) {
      let s = 0;
      for (const p of profiles) s += pearson(chroma, p[mode], tonic);
      scores.push({ key: { tonic, mode }, score: s / profiles.length });
    }
  }
  scores.sort((a, b) => b.score - a.score);
  const [best, second] = scores;
  if (!best || !second) return null;
  return { ...best.key, name: formatKey(best.key), score: best.score, margin: best.score - second.score };
}

/** Standard deviation over mean of a 12-bin chroma: ~0.1-0.2 for noise, 0.3-2 for tonal music. */
export function chromaContrast(chroma: ArrayLike<number>): number {
  let mean = 0;
  for (let i = 0; i < 12; i++) mean += chroma[i]!;
  mean /= 12;
  if (!(mean > 0)) return 0;
  let v = 0;
  for (let i = 0; i < 12; i++) v += (chroma[i]! - mean) ** 2;
  return Math.sqrt(v / 12) / mean;
}

/**
 * Key confidence, 0-1: the winning key's profile correlation (0-1), scaled down near the tonality
 * gate (`tonality` barely above `gate`, see analyze-audio.ts) and when the runner-up key is nearly
 * as good (margin under 0.05, typically the relative or a fifth-related key).
 */
export function keyConfidenceOf(key: KeyEstimate, tonality: number, gate: number): number {
  const fit = Math.max(0, Math.min(1, key.score));
  const tonal = Math.max(0, Math.min(1, (tonality - gate + 0.05) / 0.3));
  const clear = 0.5 + 0.5 * Math.min(1, key.margin / 0.05);
  return fit * tonal * clear;
}
