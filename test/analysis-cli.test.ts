import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KEY_CLIPS, renderKeyClip, writeWav } from '../support/fixtures/synth-clips.ts';

const run = promisify(execFile);
const bin = resolve(import.meta.dirname, '../bin/stemforge.mjs');
let dir: string;
let clip: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-analyze-cli-'));
  // A D major progression with drums at 96 BPM.
  const c = KEY_CLIPS.find((k) => k.key === 'D major')!;
  clip = await writeWav(dir, 'd-major', renderKeyClip({ ...c, drums: true }, 12));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stemforge analyze', () => {
  it('prints the fields of GET /v1/jobs/{id}/analysis (and camelot) with --json', async () => {
    const { stdout } = await run(process.execPath, [bin, 'analyze', clip, '--json']);
    const out = JSON.parse(stdout);
    expect(out.key).toBe('D major');
    expect(out.camelot).toBe('10B');
    expect(Math.abs(out.bpm / 96 - 1)).toBeLessThanOrEqual(0.04);
    // The confidences ride along (extra fields of audioMetadata too), 0-1.
    expect(out.tempoConfidence).toBeGreaterThan(0);
    expect(out.tempoConfidence).toBeLessThanOrEqual(1);
    expect(out.keyConfidence).toBeGreaterThan(0);
    expect(out.keyConfidence).toBeLessThanOrEqual(1);
    // The same fields as the API's analysis of a job, beats and chords included (jobId aside).
    expect(Object.keys(out).sort()).toEqual(
      [
        'beatConfidence',
        'beats',
        'beatsPerBar',
        'bpm',
        'camelot',
        'chords',
        'downbeats',
        'key',
        'keyConfidence',
        'tempoConfidence',
      ].sort(),
    );
    // 12 s at 96 BPM: a beat every 0.625 s from the clip's first bar (0.05 s), downbeats among them.
    expect(out.beats.length).toBeGreaterThanOrEqual(15);
    const gaps = out.beats.slice(1).map((b: number, i: number) => b - out.beats[i]);
    for (const g of gaps) expect(Math.abs(g / 0.625 - 1)).toBeLessThan(0.1);
    expect(out.beatsPerBar).toBe(4);
    for (const d of out.downbeats) expect(out.beats).toContain(d);
    // one chord a bar of the D major progression (renderKeyClip), spelled as keys are
    const names = new Set(out.chords.map((c: { chord: string }) => c.chord));
    expect(names.has('D')).toBe(true);
  });

  it('prints readable text without --json', async () => {
    const { stdout } = await run(process.execPath, [bin, 'analyze', clip]);
    expect(stdout).toMatch(
      /^BPM {5}\d+\.\d\nKey {5}D major \(Camelot 10B\)\nBeats {3}\d+ beats, 4 a bar, first downbeat at [\d.]+ s\nChords {2}D( [A-G][b#]?m?)+\n$/,
    );
  });

  it('exits 2 with usage for a missing file', async () => {
    const err = await run(process.execPath, [bin, 'analyze', join(dir, 'missing.mp3')]).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/no such file/);
  });
});
