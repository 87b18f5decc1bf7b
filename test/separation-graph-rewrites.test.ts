import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { readModelStructure } from '../src/onnx/model-file.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { SeparationEngine } from '../src/separation/engine.ts';
import { decodeToPlanar } from '../src/audio/decode.ts';
import { fakeSixStemModel } from './helpers/fake-six-stem-model.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';

const htdemucs = resolveModel('htdemucs', { modelsDir: '/nonexistent' })!.files['htdemucs.onnx']!;
const sha256 = getModelSpec('htdemucs')!.files[0]!.sha256!;
const ops = async (path: string) => (await readModelStructure(path)).nodes.map((n) => n.op);

describe('rewrites of the HTDemucs graph (real model file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-fuse-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces all ten attention blocks with MultiHeadAttention and keeps the copy for later loads', async () => {
    const prepared = await prepareModel(htdemucs, sha256, dir);
    expect(prepared.rewrites).toEqual({ attention: 10 });
    expect(prepared.path.startsWith(join(dir, '.prepared'))).toBe(true);
    const rewritten = await ops(prepared.path);
    expect(rewritten.filter((op) => op === 'MultiHeadAttention')).toHaveLength(10);
    expect(rewritten).not.toContain('Softmax');
    expect((await ops(htdemucs)).filter((op) => op === 'Softmax')).toHaveLength(10);

    const made = statSync(prepared.path).mtimeMs;
    expect(await prepareModel(htdemucs, sha256, dir)).toEqual(prepared);
    expect(statSync(prepared.path).mtimeMs).toBe(made);
  });

  it('makes a damaged copy again instead of loading it', async () => {
    const { path } = await prepareModel(htdemucs, sha256, dir);
    appendFileSync(path, 'x');
    const again = await prepareModel(htdemucs, sha256, dir);
    expect(again.rewrites.attention).toBe(10);
    expect((await ops(again.path)).filter((op) => op === 'MultiHeadAttention')).toHaveLength(10);
  });

  it('leaves a graph without that attention as it is', async () => {
    const other = join(dir, 'fake-six.onnx');
    writeFileSync(other, fakeSixStemModel());
    expect(await prepareModel(other, null, dir)).toEqual({ path: other, rewrites: { attention: 0 } });
  });

  it('separates as the graph as exported does', async () => {
    const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    const run = async (rewriteGraph: boolean) => {
      const engine = new SeparationEngine({ modelsDir: join(dir, 'models'), threads: 2, rewriteGraph });
      try {
        expect((await engine.start()).rewrites.attention).toBe(rewriteGraph ? 10 : 0);
        const r = await engine.separateFile({
          inputPath: input,
          outDir: join(dir, String(rewriteGraph)),
          stems: ['vocals', 'drums'],
          format: 'flac',
          quality: 'FAST',
        });
        return {
          vocals: (await decodeToPlanar(r.files.vocals!)).channels,
          drums: (await decodeToPlanar(r.files.drums!)).channels,
        };
      } finally {
        await engine.close();
      }
    };
    const rewritten = await run(true);
    const exported = await run(false);
    // 16-bit files: the float differences (about -110 dB) are below the quantisation step.
    expect(snrDb(exported.vocals, rewritten.vocals)).toBeGreaterThan(70);
    expect(snrDb(exported.drums, rewritten.drums)).toBeGreaterThan(70);
  });
});
