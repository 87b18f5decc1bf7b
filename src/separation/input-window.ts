/**
 * A sliding window over the decoded input: interleaved stereo chunks come in from the decoder, the
 * separator reads planar ranges out, and everything before the oldest position still needed is
 * dropped, so memory stays at a couple of segments whatever the track's length.
 */
export class InputWindow {
  private start = 0; // track position of data[0]
  private end = 0; // track position after the last buffered frame
  private left: Float32Array;
  private right: Float32Array;

  constructor(
    private readonly chunks: AsyncIterator<Float32Array>,
    readonly length: number,
    capacity: number,
  ) {
    this.left = new Float32Array(capacity);
    this.right = new Float32Array(capacity);
  }

  /** Pulls decoded audio until position `upTo` (clamped to the track) is buffered. */
  async fill(upTo: number): Promise<void> {
    const target = Math.min(upTo, this.length);
    while (this.end < target) {
      const next = await this.chunks.next();
      if (next.done) throw new Error(`the input ended after ${this.end} of ${this.length} frames`);
      this.append(next.value);
    }
  }

  private append(chunk: Float32Array): void {
    const n = chunk.length / 2;
    const used = this.end - this.start;
    if (used + n > this.left.length) {
      const grow = (a: Float32Array) => {
        const b = new Float32Array(Math.max(used + n, a.length * 2));
        b.set(a.subarray(0, used));
        return b;
      };
      this.left = grow(this.left);
      this.right = grow(this.right);
    }
    for (let i = 0; i < n; i++) {
      this.left[used + i] = chunk[2 * i]!;
      this.right[used + i] = chunk[2 * i + 1]!;
    }
    this.end += n;
  }

  /**
   * Copies track range [from, from + n) into `out` (planar, `[channel][n]`), with zeros outside the
   * track, transformed by `(x - offset) * scale`.
   */
  read(from: number, n: number, out: Float32Array, offset = 0, scale = 1): void {
    out.fill(0, 0, 2 * n);
    const a = Math.max(from, 0);
    const b = Math.min(from + n, this.length);
    if (a < this.start || b > this.end)
      throw new Error(`range [${a}, ${b}) is not buffered [${this.start}, ${this.end})`);
    for (let p = a; p < b; p++) {
      const k = p - this.start;
      out[p - from] = (this.left[k]! - offset) * scale;
      out[n + p - from] = (this.right[k]! - offset) * scale;
    }
  }

  /** Forgets everything before track position `pos`. */
  discardBefore(pos: number): void {
    const drop = Math.min(Math.max(0, pos - this.start), this.end - this.start);
    if (drop === 0) return;
    const used = this.end - this.start;
    this.left.copyWithin(0, drop, used);
    this.right.copyWithin(0, drop, used);
    this.start += drop;
  }
}
