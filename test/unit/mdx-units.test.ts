import { describe, expect, it } from 'vitest';
import { chosenModel, parseModelChoices } from '../../src/domain/model-choices.ts';
import { SYNTHETIC_MDX_CARD } from '../../support/mdx-synthetic-models.ts';
import { MdxCard, specFromCard } from '../../src/models/model-card.ts';
import { MdxBlend } from '../../src/separation/mdx-blend.ts';
import { planMdxChunks, symmetricHann } from '../../src/separation/mdx-chunks.ts';
import { MdxSpectrogram } from '../../src/separation/mdx-spectrogram.ts';

describe('MDX-Net chunking (MDXSeparator.demix)', () => {
  it('pads and steps as the published loop does', () => {
    const p = { hop: 1024, dimT: 256, nFft: 7680, overlap: 0.25 };
    for (const frames of [1, 1000, 195_840, 441_000, 10_584_000]) {
      const trim = 3840;
      const chunk = 1024 * 255;
      const gen = chunk - 2 * trim;
      const pad = gen + trim - (frames % gen);
      const length = trim + frames + pad;
      const step = Math.trunc(0.75 * chunk);
      const starts: number[] = [];
      for (let i = 0; i < length; i += step) starts.push(i);
      expect(planMdxChunks(frames, p)).toEqual({ trim, chunk, pad, length, step, starts });
    }
    expect(() => planMdxChunks(100, { ...p, overlap: 0.999_999_9 })).toThrow(/no step/);
  });

  it("blends with numpy's symmetric Hann window", () => {
    expect([...symmetricHann(1)]).toEqual([1]);
    expect([...symmetricHann(5)].map((v) => Number(v.toFixed(6)))).toEqual([0, 0.5, 1, 0.5, 0]);
  });

  it('the sliding blend gives result / divider over the whole mixture, chunk by chunk', () => {
    const chunk = 16;
    const length = 50;
    const starts = [0, 12, 24, 36, 48];
    const whole = { result: new Float64Array(2 * length), divider: new Float64Array(length) };
    const blend = new MdxBlend(8);
    const taken = new Float32Array(2 * length);
    let emitted = 0;
    for (const [k, start] of starts.entries()) {
      const out = Float32Array.from({ length: 2 * chunk }, (_, i) => Math.sin(i * 0.3 + start));
      const actual = Math.min(start + chunk, length) - start;
      const w = symmetricHann(actual);
      blend.add(start, out, chunk, actual, w);
      for (let c = 0; c < 2; c++)
        for (let i = 0; i < actual; i++) whole.result[c * length + start + i]! += out[c * chunk + i]! * w[i]!;
      for (let i = 0; i < actual; i++) whole.divider[start + i]! += w[i]!;
      const to = starts[k + 1] ?? length;
      const part = new Float32Array(2 * (to - emitted));
      blend.take(emitted, to, part);
      for (let c = 0; c < 2; c++)
        taken.set(part.subarray(c * (to - emitted), (c + 1) * (to - emitted)), c * length + emitted);
      emitted = to;
    }
    for (let c = 0; c < 2; c++)
      for (let i = 1; i < length - 1; i++)
        expect(taken[c * length + i]).toBeCloseTo(whole.result[c * length + i]! / whole.divider[i]!, 5);
  });
});

describe('the MDX-Net spectrogram (torch.stft / istft as audio-separator calls them)', () => {
  const p = { nFft: 64, hop: 16, dimF: 20, dimT: 9 };

  it('lays out [L_re, L_im, R_re, R_im] x dim_f x dim_t of a centred, reflect-padded, periodic-Hann STFT, first three bins zeroed', async () => {
    const s = await MdxSpectrogram.create(p);
    const len = s.chunk;
    const mix = Float32Array.from(
      { length: 2 * len },
      (_, i) => Math.sin(i * 0.37) + (i >= len ? 0.5 * Math.cos(i) : 0),
    );
    const spec = new Float32Array(s.specSize);
    s.analyze(mix, spec);
    for (const [c, t, f] of [
      [0, 0, 5],
      [1, 4, 3],
      [1, 8, 19],
      [0, 2, 1],
    ] as const) {
      let re = 0;
      let im = 0;
      for (let i = 0; i < p.nFft; i++) {
        let j = t * p.hop - p.nFft / 2 + i;
        if (j < 0) j = -j;
        if (j >= len) j = 2 * (len - 1) - j;
        const x = mix[c * len + j]! * (0.5 - 0.5 * Math.cos((2 * Math.PI * i) / p.nFft));
        re += x * Math.cos((2 * Math.PI * f * i) / p.nFft);
        im -= x * Math.sin((2 * Math.PI * f * i) / p.nFft);
      }
      const at = (plane: number) => spec[(plane * p.dimF + f) * p.dimT + t]!;
      expect(at(2 * c)).toBeCloseTo(f < 3 ? 0 : re, 3);
      expect(at(2 * c + 1)).toBeCloseTo(f < 3 ? 0 : im, 3);
    }
    s.dispose();
  });

  it('inverts what it analysed where every bin was kept', async () => {
    const full = { ...p, dimF: p.nFft / 2 + 1, dimT: 33 };
    const s = await MdxSpectrogram.create(full);
    const len = s.chunk;
    // No energy in the three lowest bins, which the analysis zeroes.
    const mix = Float32Array.from({ length: 2 * len }, (_, i) =>
      Math.sin(((2 * Math.PI * 9) / 64) * i + (i >= len ? 1 : 0)),
    );
    const spec = new Float32Array(s.specSize);
    s.analyze(mix, spec);
    const back = new Float32Array(2 * len);
    s.synthesize(spec, back);
    // Away from the edges, where the reflect padding breaks the tone and leaks into the zeroed bins.
    for (let c = 0; c < 2; c++)
      for (let i = full.nFft; i < len - full.nFft; i++) expect(back[c * len + i]).toBeCloseTo(mix[c * len + i]!, 3);
    s.dispose();
  });
});

describe('model cards and the operator’s choices', () => {
  it('makes a registry entry of an MDX card: stems, output types, shape', () => {
    const spec = specFromCard('kim', MdxCard.parse(SYNTHETIC_MDX_CARD));
    expect(spec).toMatchObject({
      family: 'mdx',
      stems: ['vocals', 'instrumental'],
      serves: { outputTypes: ['VOCALS', 'INSTRUMENTAL', 'BOTH'] },
      mdx: { dimF: 3072, dimT: 256, nFft: 7680, hop: 1024, compensate: 1.021, overlap: 0.25, denoise: false },
    });
    expect(specFromCard('inst', MdxCard.parse({ ...SYNTHETIC_MDX_CARD, primary_stem: 'Instrumental' })).stems).toEqual([
      'instrumental',
      'vocals',
    ]);
    expect(
      specFromCard('drums', MdxCard.parse({ ...SYNTHETIC_MDX_CARD, primary_stem: 'Drums' })).serves?.outputTypes,
    ).toEqual([]);
    expect(MdxCard.safeParse({ ...SYNTHETIC_MDX_CARD, compensate: 'x' }).success).toBe(false);
    expect(MdxCard.parse({ ...SYNTHETIC_MDX_CARD, is_karaoke: true }).is_karaoke).toBe(true);
  });

  it('parses SEPARATION_MODELS and picks a tier’s own choice before an every-tier one', () => {
    const choices = parseModelChoices('VOCALS:BEST=kim-vocal-2, VOCALS=voc-ft,INSTRUMENTAL=inst-hq-3');
    expect(chosenModel(choices, 'VOCALS', 'BEST')).toBe('kim-vocal-2');
    expect(chosenModel(choices, 'VOCALS', 'FAST')).toBe('voc-ft');
    expect(chosenModel(choices, 'BOTH', 'BEST')).toBeUndefined();
    expect(parseModelChoices('')).toEqual([]);
    expect(() => parseModelChoices('VOCAL=x')).toThrow(/VOCAL is not one of/);
    expect(() => parseModelChoices('VOCALS:GOOD=x')).toThrow(/GOOD is not one of/);
    expect(() => parseModelChoices('VOCALS')).toThrow(/OUTPUT_TYPE\[:TIER\]=MODEL/);
  });
});
