import { basename, join } from 'node:path';
import { decodeToPlanar } from './decode-planar.ts';
import { AudioEncoder } from '../src/audio/encode.ts';

/** Test material for the denoise benchmark: clean speech + a noise file at a chosen SNR. */

export async function readMono48(path: string): Promise<Float32Array> {
  return (await decodeToPlanar(path, { sampleRate: 48_000, channels: 1 })).channels[0]!;
}

export async function readMono(path: string, sampleRate: number): Promise<Float32Array> {
  return (await decodeToPlanar(path, { sampleRate, channels: 1, resampler: 'soxr' })).channels[0]!;
}

export async function writeWav(path: string, x: Float32Array, sampleRate = 48_000): Promise<void> {
  const enc = new AudioEncoder(path, 'wav', { sampleRate, channels: 1, limiter: false });
  await enc.write(x);
  await enc.end();
}

function power(x: Float32Array): number {
  let s = 0;
  for (const v of x) s += v * v;
  return s / x.length;
}

/**
 * Mixes `speech` with `noise` (looped to length) at `snrDb` (whole-signal power ratio) and scales
 * the mix, and the reference with it, to a 0.9 peak so nothing clips in the 16-bit file.
 */
export function mixAtSnr(
  speech: Float32Array,
  noise: Float32Array,
  snrDb: number,
): { mix: Float32Array; reference: Float32Array } {
  const looped = new Float32Array(speech.length);
  for (let i = 0; i < looped.length; i++) looped[i] = noise[i % noise.length]!;
  const gain = Math.sqrt(power(speech) / (power(looped) * 10 ** (snrDb / 10)));
  const mix = new Float32Array(speech.length);
  let peak = 0;
  for (let i = 0; i < mix.length; i++) {
    mix[i] = speech[i]! + gain * looped[i]!;
    peak = Math.max(peak, Math.abs(mix[i]!));
  }
  const scale = peak > 0 ? 0.9 / peak : 1;
  const reference = speech.map((v) => v * scale);
  for (let i = 0; i < mix.length; i++) mix[i]! *= scale;
  return { mix, reference };
}

export interface Case {
  name: string;
  noisyPath: string;
  noisy: Float32Array;
  reference: Float32Array | undefined;
}

/** Builds the mixes of every speech file at every SNR into `dir`. */
export async function buildMixes(
  speechPaths: string[],
  noisePath: string,
  snrs: number[],
  dir: string,
): Promise<Case[]> {
  const noise = await readMono48(noisePath);
  const cases: Case[] = [];
  for (const sp of speechPaths) {
    const speech = await readMono48(sp);
    for (const snr of snrs) {
      const { mix, reference } = mixAtSnr(speech, noise, snr);
      const name = `${basename(sp).replace(/\.[^.]+$/, '')}+noise@${snr}dB`;
      const noisyPath = join(dir, `${name}.wav`);
      await writeWav(noisyPath, mix);
      cases.push({ name, noisyPath, noisy: mix, reference });
    }
  }
  return cases;
}

/**
 * Band-limited resampling in process (windowed sinc, 24 zero crossings, Hann window, cut-off at
 * 0.95 of the lower Nyquist frequency), for the benchmark's many conversions: spawning ffmpeg for
 * each one dominated its run time on a loaded machine. Not for the product (which uses soxr).
 */
export function resampleSinc(x: Float32Array, from: number, to: number): Float32Array {
  if (from === to) return x;
  const ratio = to / from;
  const fc = 0.95 * Math.min(1, ratio);
  const zeros = 24;
  const half = zeros / fc;
  const n = Math.round(x.length * ratio);
  const y = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / ratio;
    const lo = Math.max(0, Math.ceil(t - half));
    const hi = Math.min(x.length - 1, Math.floor(t + half));
    let acc = 0;
    for (let k = lo; k <= hi; k++) {
      const d = t - k;
      const a = Math.PI * fc * d;
      const sinc = d === 0 ? 1 : Math.sin(a) / a;
      const w = 0.5 + 0.5 * Math.cos((Math.PI * d) / half);
      acc += x[k]! * fc * sinc * w;
    }
    y[i] = acc;
  }
  return y;
}
