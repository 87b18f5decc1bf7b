import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUNDLED_FFMPEG } from '../../src/audio/ffmpeg-choice.ts';

const repo = join(import.meta.dirname, '..', '..');
const json = (file: string) => JSON.parse(readFileSync(join(repo, file), 'utf8'));

/** Issue 42: the bundled ffmpeg is pinned in one place; package.json and the lockfile say the same. */
describe('the bundled ffmpeg pin', () => {
  it('package.json asks for exactly the pinned version, and the lockfile holds the pinned checksum', () => {
    expect(json('package.json').dependencies[BUNDLED_FFMPEG.package]).toBe(BUNDLED_FFMPEG.version);
    const locked = json('package-lock.json').packages[`node_modules/${BUNDLED_FFMPEG.package}`];
    expect(locked).toMatchObject({ version: BUNDLED_FFMPEG.version, integrity: BUNDLED_FFMPEG.integrity });
  });
});
