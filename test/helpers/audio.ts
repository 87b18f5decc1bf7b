import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { sharedPath } from '../../support/shared.ts';

const run = promisify(execFile);

/**
 * Renders a test signal with the real ffmpeg: a stereo mix of two tones with a little noise, so
 * every codec has something to encode. The extension of `path` picks the container.
 */
export async function makeTone(
  path: string,
  seconds: number,
  opts: { sampleRate?: number; channels?: number } = {},
): Promise<string> {
  const sr = opts.sampleRate ?? 44_100;
  await run('ffmpeg', [
    '-nostdin',
    '-v',
    'error',
    '-y',
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=220:sample_rate=${sr}:duration=${seconds}`,
    '-f',
    'lavfi',
    '-i',
    `sine=frequency=331:sample_rate=${sr}:duration=${seconds}`,
    '-filter_complex',
    `[0:a][1:a]amerge=inputs=2,volume=0.4[a]`,
    '-map',
    '[a]',
    '-ac',
    String(opts.channels ?? 2),
    path,
  ]);
  return path;
}

/**
 * Writes `seconds` of the MUSDB excerpt's mixture from `start` s to `path` as 32-bit float WAV with
 * the real ffmpeg (synchronously, so a describe block can make its input before its tests).
 */
export function cutMusdbMixture(path: string, seconds: number, start = 0): string {
  const from = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
  const args = ['-v', 'error', '-ss', String(start), '-t', String(seconds), '-i', from, '-c:a', 'pcm_f32le', path];
  execFileSync('ffmpeg', args);
  return path;
}
