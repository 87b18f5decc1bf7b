import type { SegmentSeparator } from './segment-separator.ts';

/**
 * Test-time augmentation by symmetries the network was trained with (Demucs trains with random
 * channel swaps and sign flips): the segment is separated as it is and again transformed, each
 * output is transformed back, and the outputs are averaged:
 * - `swap`: left and right exchanged (the sources come back with their channels exchanged);
 * - `invert`: the polarity inverted (the sources come back negated);
 * - `swap+invert`: both.
 * With the swap pass, a separation is exactly symmetric: input with its channels exchanged gives
 * the same stems with theirs exchanged.
 */
export const FLIPS = ['swap', 'invert', 'swap+invert'] as const;
export type Flip = (typeof FLIPS)[number];

/** Throws unless `flips` names each flip at most once. */
export function checkFlips(flips: readonly string[]): asserts flips is readonly Flip[] {
  for (const f of flips) if (!(FLIPS as readonly string[]).includes(f)) throw new Error(`unknown flip '${f}'`);
  if (new Set(flips).size !== flips.length) throw new Error('a flip is named twice');
}

/**
 * Writes `mix` (planar stereo, `[channel][n]`) transformed by `flip` into `out`; the transform is
 * its own inverse, so the same function maps a transformed output row pair back.
 */
export function applyFlip(flip: Flip, mix: Float32Array, n: number, out: Float32Array, offset = 0): void {
  const swap = flip !== 'invert';
  const sign = flip === 'swap' ? 1 : -1;
  const left = mix.subarray(offset, offset + n);
  const right = mix.subarray(offset + n, offset + 2 * n);
  const [first, second] = swap ? [right, left] : [left, right];
  for (let i = 0; i < n; i++) {
    // Read both before writing: `out` may be `mix` itself.
    const a = first[i]!;
    const b = second[i]!;
    out[offset + i] = sign * a;
    out[offset + n + i] = sign * b;
  }
}

/**
 * A separator that averages the plain pass with the flipped passes of each segment. Holds one
 * segment of transformed input and one of summed output (about 14 MB for HTDemucs' 4 sources),
 * whatever the track's length, and returns the average in a buffer reused from call to call.
 */
export class FlipAveragingSeparator implements SegmentSeparator {
  readonly segmentFrames: number;
  readonly sources: readonly string[];
  private readonly input: Float32Array;
  private readonly sum: Float32Array;

  constructor(
    private readonly model: SegmentSeparator,
    private readonly flips: readonly Flip[],
  ) {
    checkFlips(flips);
    this.segmentFrames = model.segmentFrames;
    this.sources = model.sources;
    this.input = new Float32Array(2 * model.segmentFrames);
    this.sum = new Float32Array(model.sources.length * 2 * model.segmentFrames);
  }

  async separate(mix: Float32Array): Promise<Float32Array> {
    const n = this.segmentFrames;
    const rows = this.sources.length * 2;
    this.sum.set((await this.model.separate(mix)).subarray(0, rows * n));
    for (const flip of this.flips) {
      applyFlip(flip, mix, n, this.input);
      const out = await this.model.separate(this.input);
      // Each source's channel pair goes back through the same transform, then adds up.
      for (let s = 0; s < this.sources.length; s++) {
        applyFlip(flip, out, n, out, s * 2 * n);
      }
      for (let i = 0; i < rows * n; i++) this.sum[i]! += out[i]!;
    }
    const scale = 1 / (1 + this.flips.length);
    for (let i = 0; i < rows * n; i++) this.sum[i]! *= scale;
    return this.sum;
  }
}
