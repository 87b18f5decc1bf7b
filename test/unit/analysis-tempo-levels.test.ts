import { describe, expect, it } from 'vitest';
import { estimateTempo } from '../../src/analysis/tempo.ts';

// Onset envelopes built directly (43 frames/s, like OnsetEnvelope at 22.05 kHz / 512): a pulse
// at 140 BPM in the full band whose body band (kicks, snares) hits only every other beat, the
// signature of a slow boom-bap groove at 70 BPM with hi-hats on the eighths. The full band hears
// the kicks and snares too, `accent` times louder than a hat.
const FRAME_RATE = 22_050 / 512;
function envelopes(bpm: number, bodyEvery: number, accent = 3, seconds = 30) {
  const n = Math.round(seconds * FRAME_RATE);
  const envelope = new Float32Array(n);
  const body = new Float32Array(n);
  const period = (60 * FRAME_RATE) / bpm;
  for (let k = 0; k * period < n - 1; k++) {
    const i = Math.round(k * period);
    envelope[i]! += 1;
    if (k % bodyEvery === 0) {
      body[i]! += 1;
      envelope[i]! += accent;
    }
  }
  return { envelope, body };
}

describe('metrical level from the body band, for drum-driven input only', () => {
  it('halves to the kick/snare level when the onsets are drum-like', () => {
    const r = estimateTempo({ ...envelopes(140, 2), onsetFlatness: 0.6 }, FRAME_RATE);
    expect(r?.bpm).toBeCloseTo(70, 0);
  });

  it('leaves the choice to the prior when the onsets are tonal (no drums to read)', () => {
    const r = estimateTempo({ ...envelopes(140, 2), onsetFlatness: 0.2 }, FRAME_RATE);
    expect(r?.bpm).toBeCloseTo(140, 0);
  });

  it('reads a 12/8 tatum as a third of it when only every third tatum has kicks or snares', () => {
    const r = estimateTempo({ ...envelopes(192, 3), onsetFlatness: 0.6 }, FRAME_RATE);
    expect(r?.bpm).toBeCloseTo(64, 0);
    const prior = estimateTempo({ ...envelopes(192, 3), onsetFlatness: 0.2 }, FRAME_RATE);
    expect(prior?.bpm).not.toBeCloseTo(64, 0); // the prior alone would not get there
  });

  it('moves only to a level that scores at least 0.6 of the score of the winner: drums alone do not overrule the tempogram and the prior', () => {
    // The full band hears no accent: its pulse at 120 BPM is even, so 60 BPM scores far lower
    // (half the comb's harmonics, and the prior), however the body band falls.
    const even = envelopes(120, 2, 0);
    expect(estimateTempo({ ...even, onsetFlatness: 0.6 }, FRAME_RATE)?.bpm).toBeCloseTo(120, 0);
    expect(estimateTempo({ ...even, onsetFlatness: 0.6 }, FRAME_RATE, { levelMoveMinScore: 0 })?.bpm).toBeCloseTo(
      60,
      0,
    );
  });

  it('gives a confidence between 0 and 1', () => {
    const r = estimateTempo({ ...envelopes(120, 1), onsetFlatness: 0.6 }, FRAME_RATE)!;
    expect(r.confidence).toBeGreaterThan(0);
    expect(r.confidence).toBeLessThanOrEqual(1);
  });
});
