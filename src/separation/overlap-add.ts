/** An overlap-add window's content from its first sample not yet taken out (`OverlapAdd.snapshot`). */
export interface OverlapAddState {
  base: number;
  /** `[row][weights.length]`. */
  acc: Float32Array;
  weights: Float32Array;
}

/**
 * Weighted overlap-add of segment outputs for one pass over a track, over a window that slides
 * forward as finished samples are taken out (Demucs' `out += weight * chunk_out; sum_weight +=
 * weight`, then `out / sum_weight`, without whole-track arrays).
 */
export class OverlapAdd {
  private base = 0; // track position of index 0
  private high = 0; // track position after the last sample added: zeros from here on
  private readonly acc: Float32Array;
  private readonly weights: Float32Array;

  constructor(
    readonly rows: number,
    private readonly capacity: number,
  ) {
    this.acc = new Float32Array(rows * capacity);
    this.weights = new Float32Array(capacity);
  }

  /**
   * Adds `segment` (`[row][segmentLength]`, whose sample 0 is at track position `inputStart`) over
   * the track range [from, to), weighted by `weight[p - weightOrigin]`.
   */
  add(
    segment: Float32Array,
    segmentLength: number,
    inputStart: number,
    from: number,
    to: number,
    weight: Float32Array,
    weightOrigin: number,
  ): void {
    const a = Math.max(from, this.base);
    if (to - this.base > this.capacity) throw new Error('overlap-add window overflow');
    for (let r = 0; r < this.rows; r++) {
      const accRow = r * this.capacity - this.base;
      const segRow = r * segmentLength - inputStart;
      for (let p = a; p < to; p++) this.acc[accRow + p]! += weight[p - weightOrigin]! * segment[segRow + p]!;
    }
    for (let p = a; p < to; p++) this.weights[p - this.base]! += weight[p - weightOrigin]!;
    this.high = Math.max(this.high, to);
  }

  /** What the window holds beyond the samples taken out: `restore` goes on exactly from it. */
  snapshot(): OverlapAddState {
    const used = Math.max(0, this.high - this.base);
    const acc = new Float32Array(this.rows * used);
    for (let r = 0; r < this.rows; r++)
      acc.set(this.acc.subarray(r * this.capacity, r * this.capacity + used), r * used);
    return { base: this.base, acc, weights: this.weights.slice(0, used) };
  }

  /** Puts back what `snapshot` took (a separation resumed in another process). */
  restore(state: OverlapAddState): void {
    const used = state.weights.length;
    if (used > this.capacity || state.acc.length !== this.rows * used)
      throw new Error('overlap-add state does not fit');
    this.acc.fill(0);
    this.weights.fill(0);
    for (let r = 0; r < this.rows; r++) this.acc.set(state.acc.subarray(r * used, (r + 1) * used), r * this.capacity);
    this.weights.set(state.weights);
    this.base = state.base;
    this.high = state.base + used;
  }

  /**
   * Adds the normalised output for track range [this.base, to) into `out` (`[row][n]`, n = to - base)
   * times `gain`, then slides the window past it.
   */
  takeInto(to: number, out: Float32Array, gain: number): void {
    const n = to - this.base;
    if (n <= 0) return;
    for (let r = 0; r < this.rows; r++) {
      const accRow = r * this.capacity;
      for (let i = 0; i < n; i++) {
        const w = this.weights[i]!;
        if (w > 0) out[r * n + i]! += (this.acc[accRow + i]! / w) * gain;
      }
      this.acc.copyWithin(accRow, accRow + n, accRow + this.capacity);
      this.acc.fill(0, accRow + this.capacity - n, accRow + this.capacity);
    }
    this.weights.copyWithin(0, n);
    this.weights.fill(0, this.capacity - n);
    this.base = to;
  }
}
