import createRnnoise from '@echogarden/rnnoise-wasm';

/*
 * RNNoise (Valin 2018, xiph/rnnoise, BSD-3-Clause) compiled to WebAssembly by
 * @echogarden/rnnoise-wasm. Its C API works on 480-sample frames at 48 kHz of floats scaled like
 * int16 (±32768); its own STFT (20 ms window, 10 ms hop) delays the output by one frame.
 */

export interface RnnoiseModule {
  HEAPF32: Float32Array;
  _malloc(bytes: number): number;
  _free(ptr: number): void;
  _rnnoise_create(model: number): number;
  _rnnoise_destroy(state: number): void;
  _rnnoise_get_frame_size(): number;
  _rnnoise_process_frame(state: number, out: number, input: number): number;
}

/** Samples per RNNoise frame at 48 kHz, and the delay of its output behind its input. */
export const RNNOISE_FRAME = 480;

// One WASM instance per thread (a state per stream): instantiating it per stream was slow.
let modulePromise: Promise<RnnoiseModule> | undefined;

export function loadRnnoise(): Promise<RnnoiseModule> {
  modulePromise ??= (createRnnoise as unknown as () => Promise<RnnoiseModule>)();
  return modulePromise;
}

interface Native {
  m: RnnoiseModule;
  state: number;
  inPtr: number;
  outPtr: number;
}

function free({ m, state, inPtr, outPtr }: Native): void {
  m._free(inPtr);
  m._free(outPtr);
  m._rnnoise_destroy(state);
}

// A stream dropped without close() (a cancelled job) still gives its WASM memory back.
const abandoned = new FinalizationRegistry<Native>(free);

/** One RNNoise stream: 480 samples in, 480 samples out, one frame late. Call `close()` when done. */
export class RnnoiseStream {
  private readonly native: Native;
  private readonly buf = new Float32Array(RNNOISE_FRAME);

  constructor(m: RnnoiseModule) {
    if (m._rnnoise_get_frame_size() !== RNNOISE_FRAME) throw new Error('unexpected RNNoise frame size');
    this.native = {
      m,
      state: m._rnnoise_create(0),
      inPtr: m._malloc(RNNOISE_FRAME * 4),
      outPtr: m._malloc(RNNOISE_FRAME * 4),
    };
    abandoned.register(this, this.native, this);
  }

  /** Processes one frame of samples in [-1, 1] into `out` (the previous frame's, denoised). */
  process(frame: Float32Array, out: Float32Array): void {
    const { m, state, inPtr, outPtr } = this.native;
    const buf = this.buf;
    for (let i = 0; i < RNNOISE_FRAME; i++) buf[i] = frame[i]! * 32768;
    m.HEAPF32.set(buf, inPtr >> 2);
    m._rnnoise_process_frame(state, outPtr, inPtr);
    const o = m.HEAPF32.subarray(outPtr >> 2, (outPtr >> 2) + RNNOISE_FRAME);
    for (let i = 0; i < RNNOISE_FRAME; i++) out[i] = o[i]! / 32768;
  }

  /** Frees the stream's WASM memory; later calls do nothing. */
  close(): void {
    if (abandoned.unregister(this)) free(this.native);
  }
}
