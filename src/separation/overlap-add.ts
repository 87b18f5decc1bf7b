/**
 * Weighted overlap-add of segment outputs for one pass over a track, over a window that slides
 * forward as finished samples are taken out (Demucs' `out += weight * chunk_out; sum_weight +=
 * weight`, then `out / sum_weight`, without whole-track arrays).
 */
export class OverlapAdd {
  private base = 0; // track position of index 0
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
