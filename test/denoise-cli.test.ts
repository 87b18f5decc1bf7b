import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { probeAudio } from '../src/audio/probe.ts';
import { sharedPath } from '../support/shared.ts';

const bin = resolve(import.meta.dirname, '../bin/stemforge.mjs');
let dir: string;

function stemforge(
  args: string[],
  env: Record<string, string> = {},
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [bin, ...args],
      { env: { ...process.env, ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err ? ((err as { code?: number }).code ?? 1) : 0;
        done({ code: typeof code === 'number' ? code : 1, stdout, stderr });
      },
    );
  });
}

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-denoise-cli-'));
  execFileSync('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-i',
    sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
    '-t',
    '3',
    '-ar',
    '44100',
    join(dir, 'in.wav'),
  ]);
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('stemforge denoise', () => {
  it('cleans a file end to end, format from the extension, with progress on stderr', async () => {
    const out = join(dir, 'out.flac');
    const r = await stemforge([
      'denoise',
      join(dir, 'in.wav'),
      '-o',
      out,
      '--attenuation-limit',
      '12',
      '--model-dir',
      sharedPath('models', 'dfn3'),
    ]);
    expect(r.stderr).toContain('denoise: 100%');
    expect(r.stderr).toContain(`wrote ${out}`);
    expect(r.code).toBe(0);
    const probe = await probeAudio(out);
    expect(probe.codec).toBe('flac');
    expect(probe.sampleRate).toBe(44100); // the input's rate
    expect(probe.durationSeconds).toBeCloseTo(3, 1);
  });

  it('names `stemforge models pull dfn3` and STEMFORGE_MODELS_DIR when the model is absent', async () => {
    const r = await stemforge(['denoise', join(dir, 'in.wav'), '-o', join(dir, 'x.mp3')], {
      STEMFORGE_MODELS_DIR: join(dir, 'no-models'),
    });
    expect(r.code).toBe(1);
    expect(r.stderr).toContain('stemforge models pull dfn3');
    expect(r.stderr).toContain('STEMFORGE_MODELS_DIR');
    expect(r.stderr).toContain(join(dir, 'no-models', 'dfn3'));
  });

  it('is a usage error (exit 2) without -o or with an unknown format', async () => {
    expect((await stemforge(['denoise', join(dir, 'in.wav')])).code).toBe(2);
    const r = await stemforge(['denoise', join(dir, 'in.wav'), '-o', join(dir, 'x.ogg')]);
    expect(r.code).toBe(2);
    expect(r.stderr).toContain('--format');
    for (const bad of ['-3', 'lots', '']) {
      const l = await stemforge(['denoise', join(dir, 'in.wav'), '-o', join(dir, 'x.mp3'), '--attenuation-limit', bad]);
      expect(l.code).toBe(2);
      expect(l.stderr).toContain('--attenuation-limit');
    }
  });
});
