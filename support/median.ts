/** The median of `xs` (the mean of the two middle values when their count is even); NaN when empty. */
export function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  if (s.length === 0) return Number.NaN;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}
