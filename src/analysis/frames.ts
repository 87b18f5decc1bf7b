/**
 * Cuts a stream of mono samples into overlapping frames of `size` samples every `hop` samples,
 * keeping only the unfinished tail between pushes so memory stays flat however long the input is.
 */
export class Framer {
  private tail = new Float32Array(0);
  private readonly frame: Float32Array;

  constructor(
    readonly size: number,
    readonly hop: number,
    private readonly onFrame: (frame: Float32Array) => void,
  ) {
    if (hop <= 0 || hop > size) throw new Error(`invalid framing: size ${size}, hop ${hop}`);
    this.frame = new Float32Array(size);
  }

  push(samples: Float32Array): void {
    let buf = samples;
    if (this.tail.length) {
      buf = new Float32Array(this.tail.length + samples.length);
      buf.set(this.tail);
      buf.set(samples, this.tail.length);
    }
    let start = 0;
    for (; start + this.size <= buf.length; start += this.hop) {
      this.frame.set(buf.subarray(start, start + this.size));
      this.onFrame(this.frame);
    }
    this.tail = buf.slice(start);
  }
}
