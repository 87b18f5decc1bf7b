import createPffft, { type PffftModule } from '@echogarden/pffft-wasm/simd';

/**
 * A real FFT of fixed size on PFFFT (Pommier's SIMD FFT, compiled to WebAssembly with SIMD). It was
 * the fastest of the npm FFTs measured for n = 4096 (see `bench/separate-fft.ts`).
 *
 * Spectra use PFFFT's ordered real layout: `[Re X0, Re X(n/2), Re X1, Im X1, Re X2, Im X2, ...]`.
 * Transforms are unscaled: `inverse(forward(x)) = n * x`.
 *
 * `input` and `output` are views on the WebAssembly heap: write the operand into `input`, call a
 * transform, read `output`. All heap memory is reserved up front, so the views stay valid.
 */
export interface RealFft {
  readonly size: number;
  readonly input: Float32Array;
  readonly output: Float32Array;
  forward(): void;
  inverse(): void;
  dispose(): void;
}

const PFFFT_REAL = 0;
const PFFFT_FORWARD = 0;
const PFFFT_BACKWARD = 1;

let modulePromise: Promise<PffftModule> | undefined;

/** Creates a real FFT of size `n` (a multiple of 32 with small prime factors; powers of two are). */
export async function createRealFft(n: number): Promise<RealFft> {
  modulePromise ??= createPffft();
  const m = await modulePromise;
  const setup = m._pffft_new_setup(n, PFFFT_REAL);
  if (!setup) throw new Error(`PFFFT cannot do a real transform of size ${n}`);
  const inPtr = m._pffft_aligned_malloc(n * 4);
  const outPtr = m._pffft_aligned_malloc(n * 4);
  const workPtr = m._pffft_aligned_malloc(n * 4);
  // Views are taken after every allocation: growing the heap would detach older ones.
  const heap = () => m.HEAPF32;
  let input = heap().subarray(inPtr >> 2, (inPtr >> 2) + n);
  let output = heap().subarray(outPtr >> 2, (outPtr >> 2) + n);
  const refresh = () => {
    if (input.length === 0) {
      input = heap().subarray(inPtr >> 2, (inPtr >> 2) + n);
      output = heap().subarray(outPtr >> 2, (outPtr >> 2) + n);
    }
  };
  return {
    size: n,
    get input() {
      refresh();
      return input;
    },
    get output() {
      refresh();
      return output;
    },
    forward: () => m._pffft_transform_ordered(setup, inPtr, outPtr, workPtr, PFFFT_FORWARD),
    inverse: () => m._pffft_transform_ordered(setup, inPtr, outPtr, workPtr, PFFFT_BACKWARD),
    dispose: () => {
      m._pffft_aligned_free(inPtr);
      m._pffft_aligned_free(outPtr);
      m._pffft_aligned_free(workPtr);
      m._pffft_destroy_setup(setup);
    },
  };
}
