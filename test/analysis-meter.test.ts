import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { analyzeAudioDetailed } from '../src/analysis/analyze-audio.ts';
import { METER_CLIPS, renderMeter } from '../support/fixtures/meter-clips.ts';
import { writeWav } from '../support/fixtures/synth-clips.ts';
import { sharedPath } from '../support/shared.ts';

// Triple and compound meters through real ffmpeg decoding: the bar of a fast waltz (a third of
// the tempo) and the tatum of a 12/8 (three times it) both pulse; only the counted beat is right.
let dir: string;
const within4 = (est: number | null, ref: number) => est !== null && Math.abs(est / ref - 1) <= 0.04;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-meter-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('tempo in triple and compound meters (accented downbeats)', () => {
  for (const clip of METER_CLIPS) {
    it(`finds the beat of ${clip.name} at ${clip.bpm} BPM, not its bar or tatum`, async () => {
      const path = await writeWav(dir, clip.name, renderMeter(clip, 20));
      const r = await analyzeAudioDetailed({ mixPath: path });
      expect(within4(r.bpm, clip.bpm), `found ${r.bpm}`).toBe(true);
      expect(r.tempoConfidence).toBeGreaterThan(0);
      expect(r.tempoConfidence).toBeLessThanOrEqual(1);
    });
  }
});

describe('tempo of real recordings', () => {
  // 126bpm.mp3 is labelled by its name; the musdb excerpt (6 s, drums+bass+other+vocals) has no
  // label, and librosa's beat tracker and its uniform-prior tempo agree on 117.5 / 234.9 BPM
  // (bench/analyze-realset.py): an octave-ambiguous label, so double/half is accepted there.
  it('reads a 30 s excerpt of 126bpm.mp3 at 126 BPM', async () => {
    const r = await analyzeAudioDetailed({ mixPath: sharedPath('audio', 'tempo-key', '126bpm.mp3'), maxSeconds: 30 });
    expect(within4(r.bpm, 126), `found ${r.bpm}`).toBe(true);
  });

  it('reads the musdb mixture near librosa tempo (117.5, octave allowed)', async () => {
    const s = (name: string) => sharedPath('audio', 'musdb-falcon69', `${name}.wav`);
    const r = await analyzeAudioDetailed({ mixPath: s('mixture') });
    expect(
      [117.5, 235, 58.75].some((ref) => within4(r.bpm, ref)),
      `found ${r.bpm}`,
    ).toBe(true);
  });
});
