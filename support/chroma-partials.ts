/** Harmonic subtraction over one frame's spectral peaks, a chroma variant (support/chroma-variants.ts, partialDecay). */

const MAX_PARTIAL = 8;
/** Half a quarter-tone: how far a peak may sit from an exact harmonic and still be taken for it. */
const PARTIAL_TOLERANCE = 0.015;

/**
 * Removes from each peak what lower peaks' harmonics would put there (peaks sorted by frequency):
 * peak j near h times peak i loses amp_i * decay^(h-1), the largest such share, after peak i has
 * itself been reduced. A crude, per-peak form of the note-dictionary fit of Mauch & Dixon's NNLS
 * chroma (2010): a low note's fifth (h = 3, 6) and major third (h = 5) no longer read as notes.
 */
export function subtractPartials(hz: Float64Array, amp: Float64Array, n: number, decay: number): void {
  for (let j = 1; j < n; j++) {
    let explained = 0;
    for (let i = 0; i < j; i++) {
      if (!(amp[i]! > 0)) continue;
      const r = hz[j]! / hz[i]!;
      if (r > MAX_PARTIAL + 0.5) continue;
      const harmonic = Math.round(r);
      if (harmonic < 2 || Math.abs(r / harmonic - 1) > PARTIAL_TOLERANCE) continue;
      explained = Math.max(explained, amp[i]! * decay ** (harmonic - 1));
    }
    amp[j] = Math.max(0, amp[j]! - explained);
  }
}
