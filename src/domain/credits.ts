/**
 * Credit rules. One credit is one second of audio. A job costs its duration rounded UP to the whole
 * second (a 61.2 s file costs 62 credits): a fraction of a second is still processed, and rounding
 * up never lets a balance go below zero through rounding.
 */
export function creditsForDuration(durationSeconds: number): number {
  return Math.max(1, Math.ceil(durationSeconds - 1e-6));
}

/** Whole minutes, rounded down, as the contract's `balanceMinutes`. */
export function wholeMinutes(seconds: number): number {
  return Math.floor(seconds / 60);
}

/** Human-readable balance, e.g. "5 minutes", "4 minutes 30 seconds", "1 hour 2 minutes", "45 seconds". */
export function formatBalance(seconds: number): string {
  const h = Math.floor(seconds / 3600);
  const m = Math.floor((seconds % 3600) / 60);
  const s = seconds % 60;
  const part = (n: number, unit: string) => `${n} ${unit}${n === 1 ? '' : 's'}`;
  const parts: string[] = [];
  if (h) parts.push(part(h, 'hour'));
  if (m) parts.push(part(m, 'minute'));
  if (s || parts.length === 0) parts.push(part(s, 'second'));
  return parts.join(' ');
}
