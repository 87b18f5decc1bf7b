/**
 * The segment schedule of Demucs' `apply_model` (demucs/apply.py), made explicit so it can be
 * streamed: a track is cut into training-length segments every `stride = (1 - overlap) * segment`
 * samples, each segment's output is weighted by a triangular transition window, and the weighted
 * outputs are summed and divided by the summed weights.
 *
 * Test-time shifts ("shift trick", Défossez et al., Demucs v2): the track is also processed with a
 * short run of leading silence, and the passes are averaged. Demucs draws the shifts at random; here
 * they are spread evenly over the 0.5 s range so results are reproducible.
 */
export interface PlannedSegment {
  /** Pass (shift) this segment belongs to. */
  pass: number;
  /** Track position of the segment input's first sample (may be negative: zeros). */
  inputStart: number;
  /** Track range whose output this segment contributes: [keepStart, keepStart + keepLength). */
  keepStart: number;
  keepLength: number;
}

export interface PlanOptions {
  segment: number;
  overlap: number;
  /** Number of shifted passes; 0 or 1 means a single unshifted pass. */
  shifts: number;
  sampleRate: number;
}

/** Leading silence of each pass: `max_shift - offset` in Demucs, with evenly spread offsets. */
export function passDelays(shifts: number, sampleRate: number): number[] {
  if (shifts <= 1) return [0];
  const maxShift = Math.floor(0.5 * sampleRate);
  return Array.from({ length: shifts }, (_, k) => Math.floor((maxShift * (k + 1)) / shifts));
}

/** All segments of a track of `length` samples, ordered by `keepStart` (the streaming order). */
export function planSegments(length: number, o: PlanOptions): PlannedSegment[] {
  const stride = Math.floor((1 - o.overlap) * o.segment);
  if (stride <= 0) throw new Error(`overlap ${o.overlap} leaves no stride`);
  const segments: PlannedSegment[] = [];
  passDelays(o.shifts, o.sampleRate).forEach((delay, pass) => {
    // In the delayed track y = [zeros(delay), x], segments start at 0, stride, ... (apply_model).
    const yLength = length + delay;
    for (let offset = 0; offset < yLength; offset += stride) {
      const keepLength = Math.min(o.segment, yLength - offset);
      // TensorChunk.padded: a short (last) chunk is centred in the segment, reading real context.
      const inputStart = offset - Math.floor((o.segment - keepLength) / 2);
      segments.push({ pass, inputStart: inputStart - delay, keepStart: offset - delay, keepLength });
    }
  });
  return segments.sort((a, b) => a.keepStart - b.keepStart || a.pass - b.pass);
}

/** Demucs' transition weight: a triangle rising from 1 to segment/2 and back, scaled to max 1. */
export function transitionWeight(segment: number): Float32Array {
  const half = Math.floor(segment / 2);
  const w = new Float32Array(segment);
  for (let i = 0; i < half; i++) w[i] = i + 1;
  for (let i = half; i < segment; i++) w[i] = segment - i;
  const max = Math.max(half, segment - half);
  for (let i = 0; i < segment; i++) w[i] /= max;
  return w;
}
