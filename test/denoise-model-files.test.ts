import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DenoiseEngine } from '../src/denoise/engine.ts';
import { DFN3_FILES, loadDfn3Model, ModelFilesError } from '../src/denoise/model-files.ts';
import { sharedPath } from '../support/shared.ts';

let dir: string;

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'stemforge-dfn3-'));
  for (const f of Object.keys(DFN3_FILES)) copyFileSync(sharedPath('models', 'dfn3', f), join(dir, f));
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('DeepFilterNet3 model files', () => {
  it('pins the checksums listed in the shared SHA256SUMS', () => {
    const sums = readFileSync(sharedPath('models', 'SHA256SUMS'), 'utf8');
    for (const [name, sha] of Object.entries(DFN3_FILES)) expect(sums).toContain(`${sha}  dfn3/${name}`);
  });

  it('loads an intact copy', async () => {
    const model = await loadDfn3Model(dir);
    expect(model.params.nbDf).toBe(96);
    expect(model.enc.length).toBeGreaterThan(1_000_000);
  });

  it('rejects a file whose checksum does not match, in the caller and through the engine thread', async () => {
    const bad = mkdtempSync(join(tmpdir(), 'stemforge-dfn3-bad-'));
    try {
      for (const f of Object.keys(DFN3_FILES)) copyFileSync(join(dir, f), join(bad, f));
      const onnx = readFileSync(join(bad, 'df_dec.onnx'));
      onnx[onnx.length - 10]! ^= 0xff;
      writeFileSync(join(bad, 'df_dec.onnx'), onnx);
      await expect(loadDfn3Model(bad)).rejects.toThrow(/checksum mismatch for .*df_dec\.onnx/);
      await expect(loadDfn3Model(bad)).rejects.toBeInstanceOf(ModelFilesError);
      const engine = new DenoiseEngine({ modelDir: bad });
      try {
        await expect(engine.ready()).rejects.toMatchObject({ name: 'ModelFilesError' });
        await expect(
          engine.denoiseFile({
            inputPath: sharedPath('audio', 'denoise', 'noisy_snr0.wav'),
            outputPath: join(bad, 'out.wav'),
            format: 'wav',
          }),
        ).rejects.toThrow(/checksum mismatch/);
      } finally {
        await engine.close();
      }
    } finally {
      rmSync(bad, { recursive: true, force: true });
    }
  });

  it('names the missing file', async () => {
    unlinkSync(join(dir, 'config.ini'));
    await expect(loadDfn3Model(dir)).rejects.toThrow(/model file missing: .*config\.ini/);
  });
});
