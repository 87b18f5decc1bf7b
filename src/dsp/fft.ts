import createPffft, { type PffftModule } from '@echogarden/pffft-wasm/simd';

/*
 * The one real FFT of the code base: PFFFT (Pommier's SIMD FFT, the WebAssembly SIMD build of
 * @echogarden/pffft-wasm). It was the fastest of the npm FFTs measured for HTDemucs' n = 4096
 * (`bench/separate-fft.ts`), and it takes DeepFilterNet's 960-point frames, which are not a power
 * of two (fft.js is radix-2/4 only): any N = 2^a 3^b 5^c with a >= 5, about 1.3 µs for 960 points.
 * Transforms are unscaled: `inverse(forward(x)) = N * x`, like torch.stft's and libDF's realfft.
 */

const PFFFT_REAL = 0;
const FORWARD = 0;
const BACKWARD = 1;

let modulePromise: Promise<PffftModule> | undefined;

/**
 * A real FFT of one size, with its buffers in the WASM heap. Not thread-safe; one per user. Two ways
 * in: {@link forward}/{@link inverse} copy to and from interleaved complex spectra; the zero-copy
 * {@link forwardOrdered}/{@link inverseOrdered} transform {@link input} into {@link output} in
 * PFFFT's ordered layout, `[Re X0, Re X(n/2), Re X1, Im X1, Re X2, Im X2, ...]`.
 */
export class RealFft {
  private inView: Float32Array;
  private outView: Float32Array;

  private constructor(
    private readonly m: PffftModule,
    readonly size: number,
    private readonly setup: number,
    private readonly inPtr: number,
    private readonly outPtr: number,
    private readonly workPtr: number,
  ) {
    this.inView = this.view(inPtr);
    this.outView = this.view(outPtr);
  }

  /** Creates a real FFT of `size` (a multiple of 32 with factors 2, 3 and 5; powers of two are). */
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

  /** The operand of {@link forwardOrdered}/{@link inverseOrdered}: a view on the WASM heap. */
  get input(): Float32Array {
    this.refresh();
    return this.inView;
  }

  /** The result of {@link forwardOrdered}/{@link inverseOrdered}: a view on the WASM heap. */
  get output(): Float32Array {
    this.refresh();
    return this.outView;
  }

  /** Forward transform of {@link input} into {@link output}, ordered layout, no copy. */
  forwardOrdered(): void {
    this.m._pffft_transform_ordered(this.setup, this.inPtr, this.outPtr, this.workPtr, FORWARD);
  }

  /** Inverse transform of {@link input} (ordered layout) into {@link output}, no copy. */
  inverseOrdered(): void {
    this.m._pffft_transform_ordered(this.setup, this.inPtr, this.outPtr, this.workPtr, BACKWARD);
  }

  /**
   * Forward transform of `input` (length N) into `out` as N/2+1 interleaved complex bins
   * (re, im, re, im, ...; length N+2).
   */
  forward(input: Float32Array, out: Float32Array): void {
    const heap = this.m.HEAPF32;
    const n = this.size;
    heap.set(input.subarray(0, n), this.inPtr >> 2);
    this.forwardOrdered();
    const o = this.outPtr >> 2;
    // PFFFT packs the purely real DC and Nyquist bins into slots 0 and 1.
    out[0] = heap[o]!;
    out[1] = 0;
    for (let i = 2; i < n; i++) out[i] = heap[o + i]!;
    out[n] = heap[o + 1]!;
    out[n + 1] = 0;
  }

  /** Inverse transform of N/2+1 interleaved complex bins into `out` (length N). */
  inverse(spec: Float32Array, out: Float32Array): void {
    const heap = this.m.HEAPF32;
    const n = this.size;
    const p = this.inPtr >> 2;
    heap[p] = spec[0]!;
    heap[p + 1] = spec[n]!;
    for (let i = 2; i < n; i++) heap[p + i] = spec[i]!;
    this.inverseOrdered();
    out.set(heap.subarray(this.outPtr >> 2, (this.outPtr >> 2) + n));
  }

  dispose(): void {
    this.m._pffft_aligned_free(this.inPtr);
    this.m._pffft_aligned_free(this.outPtr);
    this.m._pffft_aligned_free(this.workPtr);
    this.m._pffft_destroy_setup(this.setup);
  }

  private view(ptr: number): Float32Array {
    return this.m.HEAPF32.subarray(ptr >> 2, (ptr >> 2) + this.size);
  }

  /** Growing the WASM heap (another transform's allocation) detaches older views: take new ones. */
  private refresh(): void {
    if (this.inView.length === 0) {
      this.inView = this.view(this.inPtr);
      this.outView = this.view(this.outPtr);
    }
  }
}
