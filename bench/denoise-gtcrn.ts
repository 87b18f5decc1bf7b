import ort from 'onnxruntime-node';
import { RealFft } from '../src/dsp/fft.ts';

/*
 * GTCRN (Rong et al., ICASSP 2024; 48k parameters, 16 kHz), the streaming ONNX export of its
 * repository (`stream/onnx_models/gtcrn_simple.onnx`): one 257-bin frame per call with its three
 * caches carried. Framing as the repository's stream script does it: torch.stft(512, hop 256,
 * sqrt-Hann periodic window, centre reflect padding), inverse with the same window, overlap-add
 * normalised by the window's squared sum. A peer for the benchmark only.
 */

export const GTCRN_RATE = 16_000;
const N = 512;
const HOP = 256;
const BINS = N / 2 + 1;

export class Gtcrn {
  private constructor(
    private readonly session: ort.InferenceSession,
    private readonly fft: RealFft,
  ) {}

  static async load(path: string): Promise<Gtcrn> {
    const session = await ort.InferenceSession.create(path, { intraOpNumThreads: 1, interOpNumThreads: 1 });
    return new Gtcrn(session, await RealFft.create(N));
  }

  /** Denoises mono 16 kHz audio; the result has the input's length and alignment. */
  async run(x: Float32Array): Promise<Float32Array> {
    const w = Float32Array.from({ length: N }, (_, i) => Math.sqrt(0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N)));
    const pad = N / 2;
    const padded = new Float32Array(x.length + 2 * pad);
    const at = (i: number) => {
      // Reflect padding (torch.stft center=True).
      let j = i - pad;
      if (j < 0) j = -j;
      if (j >= x.length) j = 2 * (x.length - 1) - j;
      return x[Math.max(0, Math.min(x.length - 1, j))]!;
    };
    for (let i = 0; i < padded.length; i++) padded[i] = at(i);
    const frames = 1 + Math.floor((padded.length - N) / HOP);
    const out = new Float32Array(padded.length);
    const norm = new Float32Array(padded.length);
    let conv: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 16 * 16 * 33), [2, 1, 16, 16, 33]);
    let tra: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 3 * 16), [2, 3, 1, 1, 16]);
    let inter: ort.Tensor = new ort.Tensor('float32', new Float32Array(2 * 33 * 16), [2, 1, 33, 16]);
    const frame = new Float32Array(N);
    const spec = new Float32Array(N + 2);
    const mix = new Float32Array(BINS * 2);
    const time = new Float32Array(N);
    for (let t = 0; t < frames; t++) {
      for (let i = 0; i < N; i++) frame[i] = padded[t * HOP + i]! * w[i]!;
      this.fft.forward(frame, spec);
      mix.set(spec.subarray(0, 2 * BINS));
      const r = await this.session.run({
        mix: new ort.Tensor('float32', mix, [1, BINS, 1, 2]),
        conv_cache: conv,
        tra_cache: tra,
        inter_cache: inter,
      });
      if (!r.conv_cache_out || !r.tra_cache_out || !r.inter_cache_out || !r.enh)
        throw new Error(`the GTCRN graph lacks an expected output (has ${Object.keys(r).join(', ')})`);
      conv = r.conv_cache_out;
      tra = r.tra_cache_out;
      inter = r.inter_cache_out;
      const enh = r.enh.data as Float32Array;
      spec.set(enh.subarray(0, 2 * BINS));
      this.fft.inverse(spec, time);
      for (let i = 0; i < N; i++) {
        out[t * HOP + i]! += (time[i]! / N) * w[i]!;
        norm[t * HOP + i]! += w[i]! * w[i]!;
      }
    }
    const y = new Float32Array(x.length);
    for (let i = 0; i < x.length; i++) {
      const k = i + pad;
      y[i] = norm[k]! > 1e-8 ? out[k]! / norm[k]! : 0;
    }
    return y;
  }

  async close(): Promise<void> {
    await this.session.release();
    this.fft.dispose();
  }
}
