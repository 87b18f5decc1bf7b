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
  it('prints {"bpm","key","camelot","tempoConfidence","keyConfidence"} with --json', async () => {
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
  });

  it('prints readable text without --json', async () => {
    const { stdout } = await run(process.execPath, [bin, 'analyze', clip]);
    expect(stdout).toMatch(/^BPM {2}\d+\.\d\nKey {2}D major \(Camelot 10B\)\n$/);
  });

  it('exits 2 with usage for a missing file', async () => {
    const err = await run(process.execPath, [bin, 'analyze', join(dir, 'missing.mp3')]).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/no such file/);
  });
});
