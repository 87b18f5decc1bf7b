import { afterAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { ModelNotInstalledError, SeparationEngine } from '../src/separation/engine.ts';
import { FAKE_GAINS, fakeSixStemModel, SIX_SOURCES } from './helpers/fake-six-stem-model.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';

/**
 * The six-source path of the engine, run with a FAKE six-source model (no htdemucs_6s weights can
 * be had here; see helpers/fake-six-stem-model.ts). The real four-source network runs in
 * separation-engine.test.ts.
 */
describe('six stems through the engine (fake six-source model)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-six-'));
  const modelPath = join(dir, 'fake_htdemucs_6s.onnx');
  writeFileSync(modelPath, fakeSixStemModel());
  const engines: SeparationEngine[] = [];
  const engine = (o: Partial<ConstructorParameters<typeof SeparationEngine>[0]> = {}) => {
    const e = new SeparationEngine({
      modelsDir: join(dir, 'models'),
      cacheDir: join(dir, 'cache'),
      model: 'htdemucs_6s',
      modelPath,
      modelSha256: null,
      threads: 2,
      ...o,
    });
    engines.push(e);
    return e;
  };
  afterAll(async () => {
    await Promise.all(engines.map((e) => e.close()));
    rmSync(dir, { recursive: true, force: true });
  });

  it('writes piano and guitar beside the four stems, each the source the model gave', async () => {
    const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    const result = await engine().separateFile({
      model: 'htdemucs_6s',
      inputPath: input,
      outDir: join(dir, 'out'),
      stems: ['vocals', 'drums', 'bass', 'other', 'piano', 'guitar', 'instrumental'],
      format: 'flac',
      quality: 'BEST',
      // Without the whole-track normalisation each stand-in source is exactly gain x input.
      normalize: false,
    });
    expect(Object.keys(result.files).sort()).toEqual([
      'bass',
      'drums',
      'guitar',
      'instrumental',
      'other',
      'piano',
      'vocals',
    ]);
    const mix = (await decodeToPlanar(input)).channels;
    const scaled = (g: number) => mix.map((ch) => ch.map((v) => v * g));
    for (const stem of SIX_SOURCES) {
      const got = (await decodeToPlanar(result.files[stem]!)).channels;
      expect(got[0]!.length).toBe(mix[0]!.length);
      expect(snrDb(scaled(FAKE_GAINS[stem]!), got)).toBeGreaterThan(50);
    }
    // The instrumental is the input minus the vocals.
    const instrumental = (await decodeToPlanar(result.files.instrumental!)).channels;
    expect(snrDb(scaled(1 - FAKE_GAINS.vocals!), instrumental)).toBeGreaterThan(50);
  });

  it('ends an idle process after idleTimeoutMs, and the next job starts a new one', async () => {
    const e = engine({ idleTimeoutMs: 300 });
    const job = () =>
      e.separateFile({
        model: 'htdemucs_6s',
        inputPath: sharedPath('audio', 'musdb-falcon69', 'mixture.wav'),
        outDir: join(dir, 'idle'),
        stems: ['piano'],
        format: 'wav',
        quality: 'FAST',
      });
    await job();
    const first = e.pid;
    expect(first).toBeGreaterThan(0);
    await new Promise((r) => setTimeout(r, 1000));
    expect(e.pid).toBeUndefined();
    await job();
    expect(e.pid).not.toBe(first);
  });

  it('refuses a model whose outputs contradict its registry entry', async () => {
    const wrong = join(dir, 'five-sources.onnx');
    writeFileSync(wrong, fakeSixStemModel(5));
    await expect(engine({ modelPath: wrong }).start()).rejects.toThrow(
      /outputs 5 sources, but its registry entry lists 6/,
    );
  });

  it('says how to install htdemucs_6s when it is missing', async () => {
    const e = engine({ modelPath: undefined, modelsDir: join(dir, 'empty-models') });
    const err = await e.start().catch((x: unknown) => x);
    expect(err).toBeInstanceOf(ModelNotInstalledError);
    expect((err as Error).message).toMatch(/npx stemforge models pull htdemucs_6s --url <URL> --sha256 <HEX>/);
  });

  it('refuses piano from the four-source model', async () => {
    const four = engine({ model: 'htdemucs', modelPath: undefined });
    await expect(
      four.separateFile({
        model: 'htdemucs',
        inputPath: sharedPath('audio', 'musdb-falcon69', 'mixture.wav'),
        outDir: join(dir, 'x'),
        stems: ['piano'],
        format: 'wav',
        quality: 'FAST',
      }),
    ).rejects.toThrow(/the 'piano' stem needs a model that separates it/);
  });
});
