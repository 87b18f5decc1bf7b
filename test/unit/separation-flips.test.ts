import { describe, expect, it } from 'vitest';
import type { SegmentSeparator } from '../../src/separation/segment-separator.ts';
import { applyFlip, FLIPS, FlipAveragingSeparator } from '../../src/separation/test-time-augmentation.ts';

const N = 64;

/**
 * A network that is neither symmetric in its channels nor odd, so every flip changes what it
 * returns: source s, channel c = (s + 1) * own channel + 0.25 * other channel + 0.1 * own^2 + c.
 */
function lopsidedModel(): SegmentSeparator & { seen: Float32Array[] } {
  const out = new Float32Array(2 * 2 * N); // reused, as SegmentModel's buffer is
  return {
    segmentFrames: N,
    sources: ['a', 'b'],
    seen: [],
    async separate(mix) {
      this.seen.push(mix.slice());
      for (let s = 0; s < 2; s++)
        for (let c = 0; c < 2; c++)
          for (let i = 0; i < N; i++) {
            const own = mix[c * N + i]!;
            const other = mix[(1 - c) * N + i]!;
            out[(s * 2 + c) * N + i] = (s + 1) * own + 0.25 * other + 0.1 * own * own + c;
          }
      return out;
    },
  };
}

const ramp = () => Float32Array.from({ length: 2 * N }, (_, i) => Math.sin(i * 0.37) + (i < N ? 0.3 : -0.2));
/** The fake's output for one input, copied out of its reused buffer. */
const direct = async (x: Float32Array) => (await lopsidedModel().separate(x)).slice();

describe('test-time flips', () => {
  it('swaps the channels, inverts the polarity, or both; each is its own inverse', () => {
    const x = ramp();
    const out = new Float32Array(2 * N);
    applyFlip('swap', x, N, out);
    expect(out.subarray(0, N)).toEqual(x.subarray(N));
    expect(out.subarray(N)).toEqual(x.subarray(0, N));
    applyFlip('invert', x, N, out);
    expect(out).toEqual(x.map((v) => -v));
    applyFlip('swap+invert', x, N, out);
    expect(out.subarray(0, N)).toEqual(x.subarray(N).map((v) => -v));
    for (const flip of ['swap', 'invert', 'swap+invert'] as const) {
      const twice = x.slice();
      applyFlip(flip, twice, N, twice);
      applyFlip(flip, twice, N, twice);
      expect(twice).toEqual(x);
    }
  });

  it('averages the plain pass with each flipped pass mapped back', async () => {
    const x = ramp();
    const model = lopsidedModel();
    const got = await new FlipAveragingSeparator(model, FLIPS).separate(x);
    expect(model.seen).toHaveLength(4);
    expect(model.seen[0]).toEqual(x);
    const expected = await direct(x);
    for (const flip of ['swap', 'invert', 'swap+invert'] as const) {
      const flipped = new Float32Array(2 * N);
      applyFlip(flip, x, N, flipped);
      const y = await direct(flipped);
      for (let s = 0; s < 2; s++) applyFlip(flip, y, N, y, s * 2 * N);
      for (let i = 0; i < expected.length; i++) expected[i]! += y[i]!;
    }
    for (let i = 0; i < expected.length; i++) expect(got[i]).toBeCloseTo(expected[i]! / 4, 5);
    // The flips change this network's answer, so the average is not the plain output.
    const plain = await direct(x);
    expect(Math.max(...got.map((v, i) => Math.abs(v - plain[i]!)))).toBeGreaterThan(0.01);
  });

  it('makes the separation exactly swap-equivariant with the swap pass', async () => {
    const x = ramp();
    const swapped = new Float32Array(2 * N);
    applyFlip('swap', x, N, swapped);
    const a = (await new FlipAveragingSeparator(lopsidedModel(), ['swap']).separate(x)).slice();
    const b = await new FlipAveragingSeparator(lopsidedModel(), ['swap']).separate(swapped);
    for (let s = 0; s < 2; s++) applyFlip('swap', b, N, b, s * 2 * N);
    expect(b).toEqual(a);
    // Without the swap pass this network is not: the check above can fail.
    const plainA = await direct(x);
    const plainB = await direct(swapped);
    for (let s = 0; s < 2; s++) applyFlip('swap', plainB, N, plainB, s * 2 * N);
    expect(plainB).not.toEqual(plainA);
  });

  it('refuses an unknown flip or one named twice', () => {
    expect(() => new FlipAveragingSeparator(lopsidedModel(), ['mirror' as 'swap'])).toThrow(/unknown flip/);
    expect(() => new FlipAveragingSeparator(lopsidedModel(), ['swap', 'swap'])).toThrow(/twice/);
  });
});
