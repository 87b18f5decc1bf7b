import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToPlanar } from '../support/decode-planar.ts';
import type { WindowingOptions } from '../src/denoise/channel-enhancer.ts';
import { Denoiser } from '../src/denoise/denoiser.ts';
import { siSdr } from '../support/si-sdr.ts';
import { sharedPath } from '../support/shared.ts';

let denoiser: Denoiser;
let noisy: Float32Array;
let clean: Float32Array;

async function enhance(x: Float32Array, windowing: WindowingOptions, chunk: number): Promise<Float32Array> {
  return denoiser.channel({ windowing }).enhanceAll(x, chunk);
}

/** Lag (samples) of `y` against `x` with the highest cross-correlation over 1 s of speech. */
function bestLag(x: Float32Array, y: Float32Array, maxLag: number): number {
  const from = 48_000;
  const to = 96_000;
  let best = 0;
  let bestValue = -Infinity;
  for (let lag = -maxLag; lag <= maxLag; lag++) {
    let sum = 0;
    for (let i = from; i < to; i++) sum += x[i]! * y[i + lag]!;
    if (sum > bestValue) {
      bestValue = sum;
      best = lag;
    }
  }
  return best;
}

beforeAll(async () => {
  denoiser = await Denoiser.load(sharedPath('models', 'dfn3'));
  const opts = { sampleRate: 48000, channels: 1, durationSeconds: 4 };
  noisy = (await decodeToPlanar(sharedPath('audio', 'denoise', 'noisy_snr0.wav'), opts)).channels[0]!;
  clean = (await decodeToPlanar(sharedPath('audio', 'denoise', 'clean_freesound_33711.wav'), opts)).channels[0]!;
});

afterAll(async () => denoiser?.close());

describe('streaming the sequence network in overlapping windows', () => {
  it('matches one whole-sequence run closely, with output aligned to the input', async () => {
    const whole = await enhance(noisy, { blockFrames: 100_000, contextFrames: 0, crossfadeFrames: 0 }, noisy.length);
    // 0.5 s blocks (many boundaries), odd-sized input chunks.
    const windowed = await enhance(noisy, { blockFrames: 50, contextFrames: 50, crossfadeFrames: 10 }, 7001);
    expect(whole.length).toBe(noisy.length);
    expect(windowed.length).toBe(noisy.length);
    expect(siSdr(whole, windowed)).toBeGreaterThan(20);
    const wholeGain = siSdr(clean, whole) - siSdr(clean, noisy);
    expect(wholeGain).toBeGreaterThan(10);
    expect(siSdr(clean, windowed)).toBeGreaterThan(siSdr(clean, whole) - 2);
    // The STFT delay (fft - hop) and the model's look-ahead are compensated: best lag is 0.
    expect(bestLag(clean, windowed, 600)).toBe(0);
  });
});
