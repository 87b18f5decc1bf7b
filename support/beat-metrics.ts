/**
 * Beat-tracking F-measure as mir_eval.beat.f_measure computes it (Dixon 2007): an estimate within
 * `window` seconds of a reference beat is a hit, each beat matched at most once (greedy in time
 * order, which equals the optimal matching when beats are further apart than twice the window).
 * Both lists are limited to times from `from` on (mir_eval skips the first 5 s).
 */
export function beatFMeasure(ref: readonly number[], est: readonly number[], window = 0.07, from = 0): number {
  const r = ref.filter((t) => t >= from);
  const e = est.filter((t) => t >= from);
  if (r.length === 0 || e.length === 0) return 0;
  let hits = 0;
  let j = 0;
  for (const t of r) {
    while (j < e.length && e[j]! < t - window) j++;
    if (j < e.length && Math.abs(e[j]! - t) <= window) {
      hits++;
      j++;
    }
  }
  const precision = hits / e.length;
  const recall = hits / r.length;
  return precision + recall > 0 ? (2 * precision * recall) / (precision + recall) : 0;
}
