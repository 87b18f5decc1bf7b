import createPffft, { type PffftModule } from '@echogarden/pffft-wasm/simd';

/*
 * Real FFT through PFFFT (WASM SIMD build of @echogarden/pffft-wasm). DeepFilterNet's 960-point
 * frames are not a power of two, which rules out fft.js (radix-2/4 only); PFFFT takes any
 * N = 2^a 3^b 5^c with a >= 5, and runs a 960-point real transform in about 1.3 µs here.
 */

const PFFFT_REAL = 0;
const FORWARD = 0;
const BACKWARD = 1;

let modulePromise: Promise<PffftModule> | undefined;

/** A real FFT of one size, with its buffers in the WASM heap. Not thread-safe; one per user. */
export class RealFft {
  private constructor(
    private readonly m: PffftModule,
    readonly size: number,
    private readonly setup: number,
    private readonly inPtr: number,
    private readonly outPtr: number,
    private readonly workPtr: number,
  ) {}

  static async create(size: number): Promise<RealFft> {
    modulePromise ??= createPffft();
    const m = await modulePromise;
    const setup = m._pffft_new_setup(size, PFFFT_REAL);
    if (!setup) throw new Error(`PFFFT cannot do a real FFT of size ${size}`);
    const bytes = size * 4;
    return new RealFft(
      m,
      size,
      setup,
      m._pffft_aligned_malloc(bytes),
      m._pffft_aligned_malloc(bytes),
      m._pffft_aligned_malloc(bytes),
    );
  }

  /**
   * Forward transform of `input` (length N) into `out` as N/2+1 interleaved complex bins
   * (re, im, re, im, ...; length N+2). Unscaled, like realfft in libDF.
   */
  forward(input: Float32Array, out: Float32Array): void {
    const heap = this.m.HEAPF32;
    const n = this.size;
    heap.set(input.subarray(0, n), this.inPtr >> 2);
    this.m._pffft_transform_ordered(this.setup, this.inPtr, this.outPtr, this.workPtr, FORWARD);
    const o = this.outPtr >> 2;
    // PFFFT packs the purely real DC and Nyquist bins into slots 0 and 1.
    out[0] = heap[o];
    out[1] = 0;
    for (let i = 2; i < n; i++) out[i] = heap[o + i];
    out[n] = heap[o + 1];
    out[n + 1] = 0;
  }

  /** Inverse transform of N/2+1 interleaved complex bins into `out` (length N), unscaled (N * x). */
  inverse(spec: Float32Array, out: Float32Array): void {
    const heap = this.m.HEAPF32;
    const n = this.size;
    const p = this.inPtr >> 2;
    heap[p] = spec[0];
    heap[p + 1] = spec[n];
    for (let i = 2; i < n; i++) heap[p + i] = spec[i];
    this.m._pffft_transform_ordered(this.setup, this.inPtr, this.outPtr, this.workPtr, BACKWARD);
    out.set(heap.subarray(this.outPtr >> 2, (this.outPtr >> 2) + n));
  }

  dispose(): void {
    this.m._pffft_aligned_free(this.inPtr);
    this.m._pffft_aligned_free(this.outPtr);
    this.m._pffft_aligned_free(this.workPtr);
    this.m._pffft_destroy_setup(this.setup);
  }
}
