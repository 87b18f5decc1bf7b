import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { SeparationEngine } from '../src/separation/engine.ts';
import { cutMusdbMixture } from './helpers/audio.ts';
import { snrDb } from './helpers/snr.ts';

/**
 * An engine told that its first job is FAST (as the CLI does) loads FAST's int8 copy (in two parts,
 * like the float model) at start, and the float model only when a job of another tier comes.
 */
describe('SeparationEngine with firstTier FAST (real HTDemucs)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-first-tier-'));
  const input = join(dir, 'clip.wav');
  cutMusdbMixture(input, 2);
  const engine = new SeparationEngine({
    modelsDir: join(dir, 'models'),
    cacheDir: join(dir, 'cache'),
    threads: 2,
    firstTier: 'FAST',
  });
  afterAll(async () => {
    await engine.close();
    rmSync(dir, { recursive: true, force: true });
  });

  // Two model preparations and two one-segment separations; a few minutes when loaded.
  it("starts on FAST's int8 copy, then serves BEST with the float model", { timeout: 600_000 }, async () => {
    const ready = await engine.start();
    expect(ready.rewrites).toEqual({ attention: 10, parts: 2, int8MatMuls: 30 });
    const job = (quality: 'FAST' | 'BEST') =>
      engine.separateFile({
        model: 'htdemucs',
        inputPath: input,
        outDir: join(dir, quality),
        stems: ['vocals', 'drums'],
        format: 'wav',
        quality,
        limiter: false,
      });
    const fast = await job('FAST');
    const best = await job('BEST');
    for (const stem of ['vocals', 'drums']) {
      const a = (await decodeToPlanar(fast.files[stem]!)).channels;
      const b = (await decodeToPlanar(best.files[stem]!)).channels;
      expect(a[0]!.length).toBe(b[0]!.length);
      // int8 transformer weights against float: close, not identical.
      const snr = snrDb(b, a);
      console.log(`${stem}: FAST (int8) vs BEST (float) ${snr.toFixed(1)} dB`);
      expect(snr).toBeGreaterThan(15);
      expect(snr).toBeLessThan(90);
    }
  });
});
