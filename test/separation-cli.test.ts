import { describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { probeAudio } from '../src/audio/probe.ts';
import { sharedPath } from '../support/shared.ts';

const run = promisify(execFile);
const bin = join(import.meta.dirname, '..', 'bin', 'stemforge.mjs');

describe('stemforge separate (CLI, no server)', () => {
  it('writes <dir>/<stem>.<ext> with progress lines when not on a terminal', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'sf-cli-'));
    try {
      const input = join(dir, 'clip.m4a');
      // A 5 s AAC excerpt: a container/codec the engine must decode through ffmpeg.
      await run('ffmpeg', [
        '-v',
        'error',
        '-t',
        '5',
        '-i',
        sharedPath('audio', 'music', 'admiralbob77_-_Choice_-_Drum-bass.hq.ogg'),
        '-c:a',
        'aac',
        input,
      ]);
      const out = join(dir, 'stems');
      const { stdout, stderr } = await run(
        process.execPath,
        [bin, 'separate', input, '-o', out, '--stems', '2', '--format', 'flac', '--quality', 'fast'],
        {
          env: { ...process.env, STEMFORGE_DATA_DIR: join(dir, 'data') },
          maxBuffer: 1 << 20,
        },
      );
      expect(readdirSync(out).sort()).toEqual(['instrumental.flac', 'vocals.flac']);
      expect(stdout).toContain(join(out, 'vocals.flac'));
      expect(stderr).toMatch(/separating clip: 100%/);
      for (const f of ['vocals.flac', 'instrumental.flac']) {
        const p = await probeAudio(join(out, f));
        expect(p.codec).toBe('flac');
        expect(p.sampleRate).toBe(44_100);
        expect(p.channels).toBe(2);
        expect(p.durationSeconds).toBeCloseTo(5, 1);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('rejects a bad option with usage and exit code 2', async () => {
    const err = await run(process.execPath, [bin, 'separate', 'x.mp3', '-o', '/tmp/x', '--stems', '5']).catch((e) => e);
    expect(err.code).toBe(2);
    expect(err.stderr).toMatch(/--stems must be vocals, instrumental, 2, 4 or 6/);
  });
});
