/**
 * The segment schedule, made explicit so it can be streamed. Demucs' `apply_model`
 * (demucs/apply.py) cuts a track into training-length segments every `stride = (1 - overlap) *
 * segment` samples, weights each segment's output by a triangular transition window, and divides the
 * weighted sum by the summed weights. Its last segment usually keeps only a fraction of a segment
 * (on 60 s at overlap 0.25, 0.5 s of 7.8 s) and costs a whole network run. The `even` schedule (the
 * default) runs the fewest whole segments that cover the track with at least `overlap` between
 * neighbours, spread evenly from its first sample to its last: every segment reads real audio, every
 * overlap is at least the nominal one, and the count is `1 + ceil((length - segment) / stride)`
 * against Demucs' `ceil(length / stride)` (60 s at overlap 0.25: 10 runs against 11). A track no
 * longer than a segment is one segment, centred as Demucs centres a short chunk (Demucs adds a
 * second when the track is longer than its stride).
 *
 * Test-time shifts ("shift trick", Défossez et al., Demucs v2; `demucs --shifts N`): each of N
 * passes sees the track delayed by a random amount of leading silence of up to 0.5 s, its output is
 * shifted back, and the N passes are averaged. As in `apply_model`: `offset = randint(0, max_shift)`
 * (inclusive), the pass reads `padded_mix[offset:]`, i.e. the track after `max_shift - offset` zeros.
 * Demucs draws from Python's global `random`; here the draws come from a seeded generator, so a job
 * is reproducible (same seed, same stems) and the seed is a setting.
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
  /** Number of randomly shifted passes averaged; 0 means one unshifted pass (Demucs' `shifts`). */
  shifts: number;
  sampleRate: number;
  /** Seed of the shift draws (default {@link DEFAULT_SHIFT_SEED}). */
  seed?: number;
  /** `even` (default): whole segments spread over the track; `demucs`: apply_model's offsets. */
  schedule?: SegmentSchedule;
}

export type SegmentSchedule = 'even' | 'demucs';

/** Seed used when a job does not name one: the same input gives the same stems. */
export const DEFAULT_SHIFT_SEED = 0;

/** mulberry32: a small, fast 32-bit generator, plenty for drawing a handful of shifts. */
function mulberry32(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

/**
 * Leading silence of each pass: `max_shift - offset` with `offset = randint(0, max_shift)` drawn per
 * pass, as Demucs does. No shifts: one pass, no delay.
 */
export function passDelays(shifts: number, sampleRate: number, seed = DEFAULT_SHIFT_SEED): number[] {
  if (shifts <= 0) return [0];
  const maxShift = Math.floor(0.5 * sampleRate);
  const random = mulberry32(seed);
  return Array.from({ length: shifts }, () => maxShift - Math.floor(random() * (maxShift + 1)));
}

/** All segments of a track of `length` samples, ordered by `keepStart` (the streaming order). */
export function planSegments(length: number, o: PlanOptions): PlannedSegment[] {
  const stride = Math.floor((1 - o.overlap) * o.segment);
  if (stride <= 0) throw new Error(`overlap ${o.overlap} leaves no stride`);
  const segments: PlannedSegment[] = [];
  passDelays(o.shifts, o.sampleRate, o.seed).forEach((delay, pass) => {
    // Segments of the delayed track y = [zeros(delay), x]; apply_model starts them at 0, stride, ...
    const yLength = length + delay;
    const offsets = o.schedule === 'demucs' ? demucsOffsets(yLength, stride) : evenOffsets(yLength, o.segment, stride);
    for (const offset of offsets) {
      const keepLength = Math.min(o.segment, yLength - offset);
      // TensorChunk.padded: a short (last) chunk is centred in the segment, reading real context.
      const inputStart = offset - Math.floor((o.segment - keepLength) / 2);
      segments.push({ pass, inputStart: inputStart - delay, keepStart: offset - delay, keepLength });
    }
  });
  return segments.sort((a, b) => a.keepStart - b.keepStart || a.pass - b.pass);
}

function demucsOffsets(length: number, stride: number): number[] {
  const offsets: number[] = [];
  for (let offset = 0; offset < length; offset += stride) offsets.push(offset);
  return offsets;
}

/**
 * The fewest whole segments with neighbours at most `stride` apart, the last ending at `length`; a
 * track no longer than a segment is one (centred by the caller, as Demucs centres a short chunk).
 */
function evenOffsets(length: number, segment: number, stride: number): number[] {
  if (length <= segment) return [0];
  const gaps = Math.ceil((length - segment) / stride);
  return Array.from({ length: gaps + 1 }, (_, i) => Math.round((i * (length - segment)) / gaps));
}

/** Demucs' transition weight: a triangle rising from 1 to segment/2 and back, scaled to max 1. */
export function transitionWeight(segment: number): Float32Array {
  const half = Math.floor(segment / 2);
  const w = new Float32Array(segment);
  for (let i = 0; i < half; i++) w[i] = i + 1;
  for (let i = half; i < segment; i++) w[i] = segment - i;
  const max = Math.max(half, segment - half);
  for (let i = 0; i < segment; i++) w[i]! /= max;
  return w;
}
