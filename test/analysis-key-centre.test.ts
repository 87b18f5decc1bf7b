import { decodeToPlanar } from '../support/decode-planar.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNTH_RATE, writeWav } from '../support/fixtures/synth-clips.ts';
import { rng } from '../support/fixtures/synth-voices.ts';
import { analyzeAudioDetailed, MIN_TONALITY } from '../src/analysis/analyze-audio.ts';
import { AGREED_MIN_PROBABILITY, MODEL_MIN_PROBABILITY } from '../src/analysis/key-reading.ts';
import { sharedPath } from '../support/shared.ts';

// Both sides of "has a tonal centre" (key-reading.ts): real tonal music under hiss loud enough to
// push its chroma below the tonality gate still gets its key, with a low confidence, where the
// profile method and the learned model agree on it; the hiss alone, like every input without a
// tonal centre, gets none. Before, the music got null too (the model alone was below 0.2).
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-key-centre-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const SONG = sharedPath('audio', 'music', 'Karissa_Hobbs_-_Lets_Go_Fishin.hq.ogg'); // Bb major (real-music set label)
const SECONDS = 10;

/** Seeded white noise of `x`'s length at `db` dB relative to `x`'s power (x itself may be silent). */
function hiss(x: Float32Array, db: number, power: number): Float32Array {
  const rand = rng(3);
  const w = x.map(() => rand() - 0.5);
  const g = Math.sqrt((power * 10 ** (db / 10)) / (w.reduce((a, v) => a + v * v, 0) / w.length));
  return x.map((v, i) => v + g * w[i]!);
}

describe('the key of tonal music below the tonality gate', () => {
  it('is named where both methods agree, with a low confidence; the hiss alone has none', async () => {
    const all = (await decodeToPlanar(SONG, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
    const music = all.slice(30 * SYNTH_RATE, (30 + SECONDS) * SYNTH_RATE);
    const power = music.reduce((a, v) => a + v * v, 0) / music.length;
    const r = await analyzeAudioDetailed({ mixPath: await writeWav(dir, 'hissed', hiss(music, 14, power)) });
    // Measured: tonality 0.22, profile Bb major (score 0.61), model Bb major (p 0.16).
    expect(Math.max(r.chromaContrast!, r.frameContrast! - 0.05)).toBeLessThan(MIN_TONALITY);
    expect(r.key).toBe('Bb major');
    expect(r.keyMethod).toBe('agreed');
    expect(r.keyConfidence).toBeGreaterThanOrEqual(AGREED_MIN_PROBABILITY);
    expect(r.keyConfidence).toBeLessThan(MODEL_MIN_PROBABILITY);

    const alone = await analyzeAudioDetailed({
      mixPath: await writeWav(dir, 'hiss', hiss(new Float32Array(music.length), 14, power)),
    });
    expect(alone.key).toBeNull();
    expect(alone.keyConfidence).toBeNull();
  });

  it('gets a confidence no lower than the model gives it where the two agree above the gate', async () => {
    const all = (await decodeToPlanar(SONG, { sampleRate: SYNTH_RATE, channels: 1 })).channels[0]!;
    const music = all.slice(30 * SYNTH_RATE, (30 + SECONDS) * SYNTH_RATE);
    const r = await analyzeAudioDetailed({ mixPath: await writeWav(dir, 'clean', music) });
    expect(r.key).toBe('Bb major');
    expect(r.modelKey).toBe('Bb major');
    expect(r.keyConfidence).toBeGreaterThanOrEqual(r.modelKeyProbability!);
  });
});
