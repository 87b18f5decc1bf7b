import { describe, expect, it } from 'vitest';
import { addTone, midiHz } from '../support/fixtures/synth-voices.ts';
import { keyMethods } from '../support/key-backends.ts';
import { ChromaAccumulator, estimateTuning, FINE_BINS, foldChroma } from '../src/analysis/chroma.ts';
import { subtractPartials } from '../support/chroma-partials.ts';
import { chromaVariant } from '../support/chroma-variants.ts';

// Per-frame histograms (the chords read them) and harmonic subtraction (a variant the key benches
// measure, support/chroma-variants.ts, bench/analyze-key-time.ts): these check that they compute
// what the benches' figures claim.
const SR = 22_050;

/** `seconds` of one harmonic tone (partials 1/h^tilt) at `hz`, faded in and out. */
function tone(hz: number, seconds: number, tilt: number): Float32Array {
  const out = new Float32Array(Math.round(seconds * SR));
  addTone(out, SR, hz, 0, seconds - 0.2, 0.3, { harmonics: 8, tilt, decay: 100 });
  return out;
}

function chromaOf(samples: Float32Array, options: ConstructorParameters<typeof ChromaAccumulator>[1] = {}) {
  const acc = new ChromaAccumulator(SR, options);
  acc.push(samples);
  const fine = acc.fineHistogram();
  const c = foldChroma(fine, estimateTuning(fine));
  const sum = c.reduce((a, b) => a + b, 0);
  return { acc, chroma: c.map((v) => v / sum) };
}

describe('per-frame histograms', () => {
  it('keeps one normalised histogram per counted frame, summing to the whole histogram', () => {
    const x = tone(midiHz(57), 3, 1);
    for (const f of [60, 64, 67]) addTone(x, SR, midiHz(f), 0, 2.8, 0.2, { decay: 100 });
    const { acc } = chromaOf(x, { frames: true });
    const frames = acc.frameHistograms();
    expect(frames.length).toBe(acc.frameCount);
    expect(frames.length).toBeGreaterThan(10);
    const total = new Float64Array(FINE_BINS);
    for (const f of frames) {
      expect(f.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
      for (let i = 0; i < FINE_BINS; i++) total[i]! += f[i]!;
    }
    const whole = acc.fineHistogram();
    for (let i = 0; i < FINE_BINS; i++) expect(total[i]).toBeCloseTo(whole[i]!, 9);
    // Off unless asked for (the analysis asks, for the chords).
    expect(chromaOf(x).acc.frameHistograms()).toHaveLength(0);
  });
});

describe('harmonic subtraction', () => {
  it('takes from a peak what a lower peak predicts at an integer multiple, nothing elsewhere', () => {
    const hz = Float64Array.from([100, 200, 301, 450]);
    const amp = Float64Array.from([1, 0.6, 0.4, 0.5]);
    subtractPartials(hz, amp, 4, 0.6);
    expect(amp[0]).toBe(1);
    expect(amp[1]).toBeCloseTo(0, 9); // 2 x 100 Hz: 0.6 - 0.6
    expect(amp[2]).toBeCloseTo(0.4 - 0.36, 9); // 3 x 100 Hz within 1.5 %
    expect(amp[3]).toBe(0.5); // 4.5 x 100 Hz and 1.5 x 300 Hz: no harmonic
  });

  it("moves a low note's fifth and major third (its 3rd and 5th partials) back to the note", () => {
    // A2 with partials falling as 1/h: E (h = 3, 6) and C# (h = 5) read as notes in the chroma.
    const x = tone(110, 3, 1);
    const plain = chromaOf(x).chroma;
    const subtracted = chromaOf(x, { shaping: chromaVariant({ partialDecay: 0.6 }) }).chroma;
    const [A, E, Cs] = [9, 4, 1];
    expect(plain[E]!).toBeGreaterThan(0.15);
    expect(plain[Cs]!).toBeGreaterThan(0.04);
    expect(subtracted[E]!).toBeLessThan(plain[E]! / 2);
    expect(subtracted[Cs]!).toBeLessThan(plain[Cs]!); // 1/5 less 0.6^4 leaves a third of it
    expect(subtracted[A]!).toBeGreaterThan(plain[A]! + 0.1);
  });
});

describe('bench key back ends', () => {
  // Frames of a clean I-IV-V-I-vi-ii-V-I in C and i-iv-V-i in A minor: every back end must name them.
  const triad = (root: number, third: number) => {
    const f = new Float64Array(12);
    for (const i of [0, third, 7]) f[(root + i) % 12] = 1 / 3;
    return f;
  };
  const excerpt = (frames: Float64Array[]) => {
    const global = new Float64Array(12);
    for (const f of frames) for (let i = 0; i < 12; i++) global[i]! += f[i]!;
    return { global, frames };
  };
  const major = excerpt([0, 5, 7, 0, 9, 2, 7, 0].map((r) => triad(r, r === 9 || r === 2 ? 3 : 4)));
  const minor = excerpt([9, 2, 4, 9, 9].map((r) => triad(r, r === 4 ? 4 : 3)));
  for (const [name, method] of Object.entries(keyMethods()))
    it(`${name}: C major and A minor on clean triads`, () => {
      expect(method(major)).toBe('C major');
      expect(method(minor)).toBe('A minor');
    });
});
