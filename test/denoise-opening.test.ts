import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { Denoiser } from '../src/denoise/denoiser.ts';
import { siSdr } from '../support/si-sdr.ts';
import { mixAtSnr } from '../support/denoise-mixes.ts';
import { fromOnset, steadyPart } from '../support/denoise-set.ts';
import { sharedPath } from '../support/shared.ts';

/*
 * The first second of short inputs (issue 18): real speech from shared/ over real noise, through
 * the real model, guarded (the product) against the bare model (guard: false). The opening guard
 * (opening-guard.ts) limits, per ERB band, how much the model may change the input over the
 * first second to a multiple of the noise floor it looks ahead for.
 */

const RATE = 48_000;
let guarded: Denoiser;
let bare: Denoiser;

async function at48(...p: string[]): Promise<Float32Array> {
  const ch = (await decodeToPlanar(sharedPath(...p), { sampleRate: RATE, channels: 1 })).channels[0];
  if (!ch) throw new Error(`no audio in ${p.join('/')}`);
  return ch;
}

async function enhance(d: Denoiser, x: Float32Array): Promise<Float32Array> {
  return d.channel().enhanceAll(x, x.length || 1);
}

const first = (x: Float32Array) => x.subarray(0, RATE);

/** First-second SI-SDR (dB) of the input, the guarded and the bare output. */
async function firstSecond(speech: Float32Array, noise: Float32Array, snr: number) {
  const { mix, reference } = mixAtSnr(speech, noise, snr);
  return {
    input: siSdr(first(reference), first(mix)),
    guarded: siSdr(first(reference), first(await enhance(guarded, mix))),
    bare: siSdr(first(reference), first(await enhance(bare, mix))),
  };
}

beforeAll(async () => {
  guarded = await Denoiser.load(sharedPath('models', 'dfn3'));
  bare = await Denoiser.load(sharedPath('models', 'dfn3'), { guard: false });
});

afterAll(async () => {
  await guarded?.close();
  await bare?.close();
});

describe('the first second of a short input', () => {
  it('keeps a talker who starts at t = 0 over babble (the bare model removes the first words)', async () => {
    const speech = fromOnset(await at48('audio', 'speech', '198-209-0000.hq.ogg'), RATE).slice(0, 8 * RATE);
    // The PESQ set's babble: its 0 dB mix minus its speech.
    const mix0 = await at48('audio', 'denoise-dev', 'speech_16k_babble_0dB.wav');
    const sp0 = await at48('audio', 'denoise-dev', 'speech_16k.wav');
    const babble = mix0.map((v, i) => v - (sp0[i] ?? 0));
    // Measured: input 4.5 dB, bare model 3.5 dB (2.0 with a 1 s start-up), guarded 7.4 dB over the first second.
    const r = await firstSecond(speech, babble, 5);
    expect(r.bare).toBeLessThan(r.input - 0.5);
    expect(r.guarded).toBeGreaterThan(r.input + 1);
    expect(r.guarded).toBeGreaterThan(r.bare + 2);
  });

  it('does not distort speech after a nearly silent noise opening (a fan spinning up)', async () => {
    const speech = fromOnset(await at48('audio', 'denoise-dev', 'clean_anechoic_44k.wav'), RATE);
    // The fan recording from its start: nearly silent for its first second, then spinning up.
    const fan = await at48('audio', 'denoise-dev', 'noise_fan_44k.wav');
    // Measured: input 29.0 dB, bare model 19.2 dB, guarded 28.7 dB over the first second.
    const r = await firstSecond(speech, fan, 10);
    expect(r.bare).toBeLessThan(r.input - 3);
    expect(r.guarded).toBeGreaterThan(r.bare + 3);
    expect(r.guarded).toBeGreaterThan(r.input - 1);
  });

  it("the evaluation set mixes noise at its stated SNR from the first second (the fan recording's fade-in is cut)", async () => {
    const fan = await at48('audio', 'denoise-dev', 'noise_fan_44k.wav');
    const speech = fromOnset(await at48('audio', 'denoise-dev', 'clean_anechoic_44k.wav'), RATE);
    const inputFirst = (noise: Float32Array) => {
      const { mix, reference } = mixAtSnr(speech, noise, 5);
      return siSdr(first(reference), first(mix));
    };
    const steady = steadyPart(fan, RATE);
    // Measured: 8.5 dB with the fade cut (speech is louder than average in its first second), 24.0 from the start.
    expect(steady.length).toBeLessThan(fan.length - RATE);
    expect(inputFirst(steady)).toBeLessThan(12);
    expect(inputFirst(fan)).toBeGreaterThan(20);
  });
});
