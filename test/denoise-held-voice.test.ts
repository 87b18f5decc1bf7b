import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Denoiser } from '../src/denoise/denoiser.ts';
import { siSdr } from '../support/si-sdr.ts';
import { mixAtSnr, readMono48 } from '../support/denoise-mixes.ts';
import { fromOnset, steadyPart } from '../support/denoise-set.ts';
import { sharedPath } from '../support/shared.ts';

/*
 * The held-voice guard (held-voice-guard.ts): real speech from shared/, drawn out by ffmpeg to half
 * its pace at the same pitch (held vowels, which DeepFilterNet3 takes for stationary noise), over the
 * real fan recording (5 and 10 dB SNR), through the real model with the guard (the product) and without
 * it (heldVoiceGuard: false). At its own pace the same speech must come out as it did before.
 */

const RATE = 48_000;
const SECONDS = 3;
let work: string;
let product: Denoiser;
let withoutGuard: Denoiser;

/** SI-SDR gain (dB over the input) of both cleaners on `speech` over the fan at `snr` dB. */
async function gains(speech: Float32Array, snr: number) {
  const fan = steadyPart(await readMono48(sharedPath('audio', 'denoise-dev', 'noise_fan_44k.wav')), RATE);
  const clip = fromOnset(speech, RATE).slice(0, SECONDS * RATE);
  const { mix, reference } = mixAtSnr(clip, fan, snr);
  const input = siSdr(reference, mix);
  const run = async (d: Denoiser) => siSdr(reference, await d.channel().enhanceAll(mix)) - input;
  return { product: await run(product), withoutGuard: await run(withoutGuard) };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'stemforge-held-voice-'));
  product = await Denoiser.load(sharedPath('models', 'dfn3'));
  withoutGuard = await Denoiser.load(sharedPath('models', 'dfn3'), { heldVoiceGuard: false });
});

afterAll(async () => {
  await product?.close();
  await withoutGuard?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

describe('the held-voice guard', () => {
  it('keeps speech drawn out to half its pace, which the model alone removes', async () => {
    const slow = join(work, 'slow.wav');
    const src = sharedPath('audio', 'speech', '198-209-0000.hq.ogg');
    execFileSync('ffmpeg', ['-v', 'error', '-y', '-i', src, '-af', 'atempo=0.5', '-c:a', 'pcm_f32le', slow]);
    const g = await gains(await readMono48(slow), 5);
    // Measured: without the guard +5.5 dB, with it +11.0 dB.
    expect(g.product).toBeGreaterThan(g.withoutGuard + 3);
    expect(g.product).toBeGreaterThan(8);
  });

  it('leaves speech at its own pace as the model cleans it', async () => {
    const g = await gains(await readMono48(sharedPath('audio', 'speech', '198-209-0000.hq.ogg')), 10);
    // Measured: +9.19 dB without the guard, +9.17 dB with it.
    expect(g.withoutGuard).toBeGreaterThan(5);
    expect(Math.abs(g.product - g.withoutGuard)).toBeLessThan(0.5);
  });
});
