import type { JobAnalysisBody } from '../../../src/contract/practice.ts';

/** What the player reads of a job's analysis: its beats (seconds), the bars' first beats, and chords. */
export interface BeatGrid {
  beats: number[];
  downbeats: number[];
  beatsPerBar: number;
}

export type Snap = 'off' | 'beat' | 'bar';

/**
 * The job's beat grid, or why there is none: a job analysed before beats existed (or a denoise
 * job), or music without a steady pulse. The click and the snapping say this instead of acting.
 */
export function beatGrid(analysis: JobAnalysisBody | null | undefined): BeatGrid | string {
  if (!analysis) return 'The beats of this job are not available.';
  if (analysis.beats === null) return 'This job was analysed before beats were, so it has none.';
  if (analysis.beats.length < 2) return 'No steady beat was found in this song.';
  const beatsPerBar = analysis.beatsPerBar ?? 4;
  const downbeats = analysis.downbeats?.length
    ? analysis.downbeats
    : analysis.beats.filter((_, i) => i % beatsPerBar === 0);
  return { beats: analysis.beats, downbeats, beatsPerBar };
}

/** The time of `list` nearest to `t` (the list is sorted); `t` itself when the list is empty. */
function nearest(list: number[], t: number): number {
  let lo = 0;
  let hi = list.length - 1;
  if (hi < 0) return t;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (list[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  const after = list[lo]!;
  const before = list[lo - 1];
  return before !== undefined && t - before <= after - t ? before : after;
}

/** `t` moved to the nearest beat or bar line (unchanged with snapping off or without beats). */
export function snapTime(t: number, snap: Snap, grid: BeatGrid | string): number {
  if (snap === 'off' || typeof grid === 'string') return t;
  return nearest(snap === 'bar' ? grid.downbeats : grid.beats, t);
}

/** The beat period around `t` (seconds at 100 %): the gap between the beats on either side of it. */
export function beatPeriodAt(grid: BeatGrid, t: number): number {
  const i = Math.max(
    1,
    grid.beats.findIndex((b) => b >= t),
  );
  const a = grid.beats[i - 1] ?? 0;
  const b = grid.beats[i] ?? a + 0.5;
  return Math.max(0.2, b - a);
}
