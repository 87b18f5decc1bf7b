import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ANALYSIS_SAMPLE_RATE, analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { BEAT_MODEL_PATH, BEAT_MODEL_SHA256, beatActivation } from '../src/analysis/beat-model.ts';
import { ONSET_FRAME, ONSET_HOP, OnsetEnvelope } from '../src/analysis/onset-envelope.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { median } from '../support/median.ts';
import { sharedPath } from '../support/shared.ts';

// The learned beat model (models/beat-model.onnx, trained only on rendered pieces: tools/beat-model/)
// run by onnxruntime-node inside the analyser, on a real recording it never trained on.
let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-beat-model-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const REAL = sharedPath('audio', 'tempo-key', '126bpm.mp3');

describe('the shipped beat model', () => {
  it('is small and is the file its checksum names', () => {
    expect(statSync(BEAT_MODEL_PATH).size).toBeLessThan(500_000);
    expect(createHash('sha256').update(readFileSync(BEAT_MODEL_PATH)).digest('hex')).toBe(BEAT_MODEL_SHA256);
  });

  it('places the beats of a real recording: its activation peaks on them, not between them', async () => {
    const r = await analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 30 });
    expect(r.beats.length).toBeGreaterThanOrEqual(50);
    const x = (await decodeToPlanar(REAL, { sampleRate: ANALYSIS_SAMPLE_RATE, channels: 1 })).channels[0]!;
    const onset = new OnsetEnvelope(ANALYSIS_SAMPLE_RATE);
    onset.push(x.subarray(0, 30 * ANALYSIS_SAMPLE_RATE));
    const act = (await beatActivation(onset.modelBandFrames(), onset.modelBandCount))!;
    expect(act.length).toBe(onset.envelope().length);
    const at = (s: number) => {
      const i = Math.round((s * ANALYSIS_SAMPLE_RATE - ONSET_FRAME / 2) / ONSET_HOP);
      return Math.max(act[i - 1] ?? 0, act[i] ?? 0, act[i + 1] ?? 0);
    };
    const on = r.beats.reduce((a, b) => a + at(b), 0) / r.beats.length;
    const mids = r.beats.slice(1).map((b, i) => (b + r.beats[i]!) / 2);
    const off = mids.reduce((a, b) => a + at(b), 0) / mids.length;
    const strong = r.beats.filter((b) => at(b) > 0.5).length / r.beats.length;
    const msg = `activation at beats ${on.toFixed(3)}, between ${off.toFixed(3)}, beats over 0.5: ${strong.toFixed(2)}`;
    // (126 BPM house: its off-beat hi-hats draw some activation too; at the beats it is 0.63, between 0.43)
    expect(strong, msg).toBeGreaterThanOrEqual(0.8);
    expect(on, msg).toBeGreaterThan(1.3 * off);
  });

  it('puts the beats on the attacks, not where the model expects them a frame before', async () => {
    // The model learnt rendered pieces' score grid, which their instruments sound 5-40 ms after: on
    // this recording its beats came 24 ms (median) before the attacks the onset tracker finds, until
    // each beat was moved to the onsets' peak nearby (beats.ts snapToOnsets).
    const model = await analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 30 });
    const onsets = await analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 30, beatModelPath: null });
    const offsets = model.beats
      .map((b) => onsets.beats.reduce((best, o) => (Math.abs(b - o) < Math.abs(best) ? b - o : best), Infinity))
      .filter((d) => Math.abs(d) < 0.1);
    expect(offsets.length).toBeGreaterThanOrEqual(0.9 * model.beats.length);
    expect(Math.abs(median(offsets))).toBeLessThan(0.008);
  });

  it('is what the beats are read from: another model file is read instead, a broken one fails', async () => {
    const copy = join(dir, 'copy.onnx');
    writeFileSync(copy, readFileSync(BEAT_MODEL_PATH));
    const shipped = await analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 20 });
    const same = await analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 20, beatModelPath: copy });
    expect(same.beats).toEqual(shipped.beats);
    const broken = join(dir, 'broken.onnx');
    writeFileSync(broken, readFileSync(BEAT_MODEL_PATH).subarray(0, 1000));
    await expect(analyzeAudioDetailed({ mixPath: REAL, maxSeconds: 20, beatModelPath: broken })).rejects.toThrow();
  });
});
