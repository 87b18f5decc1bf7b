/**
 * Rows of a fixed width addressed by absolute frame index, keeping only a sliding range so that
 * memory stays flat however long the stream is. Old rows are dropped with `dropBefore`.
 */
export class FrameBuffer {
  private data: Float32Array;
  private first = 0; // absolute index of row 0 of `data`
  private count = 0;

  constructor(
    readonly width: number,
    initialRows = 256,
  ) {
    this.data = new Float32Array(width * initialRows);
  }

  /** Absolute index one past the last row. */
  get end(): number {
    return this.first + this.count;
  }

  get start(): number {
    return this.first;
  }

  /** Appends a row and returns it for filling. */
  push(): Float32Array {
    if ((this.count + 1) * this.width > this.data.length) {
      const bigger = new Float32Array(this.data.length * 2);
      bigger.set(this.data.subarray(0, this.count * this.width));
      this.data = bigger;
    }
    const row = this.data.subarray(this.count * this.width, (this.count + 1) * this.width);
    row.fill(0);
    this.count++;
    return row;
  }

  /** Row at absolute index `t`, or undefined outside the kept range. */
  row(t: number): Float32Array | undefined {
    const i = t - this.first;
    if (i < 0 || i >= this.count) return undefined;
    return this.data.subarray(i * this.width, (i + 1) * this.width);
  }

  /** Forgets rows before absolute index `t`. */
  dropBefore(t: number): void {
    const n = Math.min(this.count, t - this.first);
    if (n <= 0) return;
    this.data.copyWithin(0, n * this.width, this.count * this.width);
    this.first += n;
    this.count -= n;
  }
}
