/**
 * The overlap-add of MDX chunks as `MDXSeparator.demix` does it: each chunk's output, multiplied by
 * its window (or not, without overlap), is added to `result` and the window to `divider`, and the
 * track is `result / divider`. Kept as a sliding span of mixture positions: what no later chunk
 * reaches is taken out and forgotten, so memory stays at a few chunks however long the track.
 * Float32 sums, like the reference's arrays.
 */
export class MdxBlend {
  /** Mixture position of index 0. */
  private base = 0;
  private result: [Float32Array, Float32Array];
  private divider: Float32Array;

  constructor(capacity: number) {
    this.result = [new Float32Array(capacity), new Float32Array(capacity)];
    this.divider = new Float32Array(capacity);
  }

  /**
   * Adds the first `actual` samples of a chunk's output (planar stereo, `chunk` samples a channel)
   * at mixture position `start`, weighted by `window` (length `actual`; null: weight 1).
   */
  add(start: number, out: Float32Array, chunk: number, actual: number, window: Float32Array | null): void {
    this.reserve(start + actual);
    const at = start - this.base;
    for (let c = 0; c < 2; c++) {
      const r = this.result[c]!;
      const src = c * chunk;
      if (window) for (let i = 0; i < actual; i++) r[at + i]! += out[src + i]! * window[i]!;
      else for (let i = 0; i < actual; i++) r[at + i]! += out[src + i]!;
    }
    const d = this.divider;
    if (window) for (let i = 0; i < actual; i++) d[at + i]! += window[i]!;
    else for (let i = 0; i < actual; i++) d[at + i]! += 1;
  }

  /**
   * Writes `result / divider` for mixture positions [from, to) into `out` (planar, `[channel][to - from]`),
   * then forgets every position before `to`.
   */
  take(from: number, to: number, out: Float32Array): void {
    const n = to - from;
    this.reserve(to);
    for (let c = 0; c < 2; c++) {
      const r = this.result[c]!;
      for (let i = 0; i < n; i++) {
        const k = from + i - this.base;
        out[c * n + i] = r[k]! / this.divider[k]!;
      }
    }
    this.discardBefore(to);
  }

  private discardBefore(pos: number): void {
    const drop = pos - this.base;
    if (drop <= 0) return;
    const keep = this.divider.length - drop;
    for (const a of [...this.result, this.divider]) {
      a.copyWithin(0, drop);
      a.fill(0, Math.max(0, keep));
    }
    this.base = pos;
  }

  private reserve(end: number): void {
    const need = end - this.base;
    if (need <= this.divider.length) return;
    const grow = (a: Float32Array) => {
      const b = new Float32Array(Math.max(need, a.length * 2));
      b.set(a);
      return b;
    };
    this.result = [grow(this.result[0]), grow(this.result[1])];
    this.divider = grow(this.divider);
  }
}
