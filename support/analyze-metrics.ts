import { parseKey } from '../src/analysis/key-names.ts';

/** Tempo within `tol` (4 %) of the reference. */
export function tempoHit(est: number | null, ref: number, tol = 0.04): boolean {
  return est !== null && Math.abs(est / ref - 1) <= tol;
}

/** Tempo within `tol` of the reference or of its double, half, triple or third (MIREX "Accuracy 2"). */
export function tempoHitOctave(est: number | null, ref: number, tol = 0.04): boolean {
  return [1, 2, 0.5, 3, 1 / 3].some((f) => tempoHit(est, ref * f, tol));
}

/**
 * MIREX audio key detection score: 1 for the same key, 0.5 for a perfect fifth (same mode, tonic a
 * fifth above or below), 0.3 for the relative key, 0.2 for the parallel key, else 0.
 */
export function mirexKeyScore(estimate: string | null, reference: string): number {
  const e = estimate ? parseKey(estimate) : null;
  const r = parseKey(reference);
  if (!e || !r) return 0;
  const d = (e.tonic - r.tonic + 12) % 12;
  if (e.mode === r.mode) {
    if (d === 0) return 1;
    if (d === 7 || d === 5) return 0.5;
    return 0;
  }
  if (d === 0) return 0.2;
  // Relative: the minor tonic is three semitones below the major's.
  if (r.mode === 'major' && d === 9) return 0.3;
  if (r.mode === 'minor' && d === 3) return 0.3;
  return 0;
}

/**
 * The score as mir_eval.key.weighted_score (0.8) computes it: a fifth counts only when the estimate's
 * tonic is a fifth above the reference's (the dominant), not below (the subdominant).
 */
export function mirEvalKeyScore(estimate: string | null, reference: string): number {
  const s = mirexKeyScore(estimate, reference);
  const e = estimate ? parseKey(estimate) : null;
  const r = parseKey(reference);
  return s === 0.5 && e && r && (e.tonic - r.tonic + 12) % 12 === 5 ? 0 : s;
}
