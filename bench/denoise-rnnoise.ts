import { loadRnnoise, RNNOISE_FRAME, RnnoiseStream } from '../src/denoise/rnnoise.ts';

/*
 * RNNoise (Valin 2018, xiph/rnnoise) on a whole signal, the baseline the issue asks us to beat (the
 * product uses the same stream as its held-voice guard: src/denoise/rnnoise.ts). Its output is one
 * frame late, which is removed here so the output lines up with the input as ours does.
 */
const RNNOISE_DELAY = RNNOISE_FRAME;

/** Denoises a mono 48 kHz signal in [-1, 1]; the result has the input's length and alignment. */
export async function rnnoise(x: Float32Array): Promise<Float32Array> {
  const stream = new RnnoiseStream(await loadRnnoise());
  const padded = x.length + RNNOISE_DELAY;
  const out = new Float32Array(Math.ceil(padded / RNNOISE_FRAME) * RNNOISE_FRAME);
  const buf = new Float32Array(RNNOISE_FRAME);
  try {
    for (let t = 0; t * RNNOISE_FRAME < padded; t++) {
      buf.fill(0);
      buf.set(x.subarray(t * RNNOISE_FRAME, (t + 1) * RNNOISE_FRAME));
      stream.process(buf, out.subarray(t * RNNOISE_FRAME, (t + 1) * RNNOISE_FRAME));
    }
  } finally {
    stream.close();
  }
  return out.slice(RNNOISE_DELAY, RNNOISE_DELAY + x.length);
}
