import { afterAll, describe, expect, it } from 'vitest';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { VERIFIED_CACHE_FILE } from '../src/models/verify.ts';
import { readModelStructure } from '../src/onnx/model-file.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { variantEngine } from '../support/htdemucs-variant.ts';
import { SeparationEngine } from '../src/separation/engine.ts';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { fakeSixStemModel } from './helpers/fake-six-stem-model.ts';
import { sharedPath } from '../support/shared.ts';
import { snrDb } from './helpers/snr.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { HTDEMUCS_SEGMENT_FRAMES } from '../src/separation/htdemucs-shapes.ts';

const htdemucs = resolveModel('htdemucs', { modelsDir: '/nonexistent' })!.files['htdemucs.onnx']!;
const sha256 = getModelSpec('htdemucs')!.files[0]!.sha256!;
const ops = async (path: string) => (await readModelStructure(path)).nodes.map((n) => n.op);

/** The sources of the MUSDB mixture's first segment through `model` (a graph file, or its parts). */
async function separate(model: string | string[]): Promise<Float32Array> {
  const audio = await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
  const n = HTDEMUCS_SEGMENT_FRAMES;
  const mix = new Float32Array(2 * n);
  for (let c = 0; c < 2; c++) mix.set(audio.channels[c]!.subarray(0, n), c * n);
  const m = await SegmentModel.load(model, getModelSpec('htdemucs')!.stems!, { executionProvider: 'cpu', threads: 2 });
  try {
    return (await m.separate(mix)).slice();
  } finally {
    await m.dispose();
  }
}

describe('rewrites of the HTDemucs graph (real model file)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sf-fuse-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('replaces all ten attention blocks with MultiHeadAttention and keeps the copy for later loads', async () => {
    const prepared = await prepareModel(htdemucs, sha256, dir);
    expect(prepared.rewrites).toEqual({ attention: 10, parts: 2, int8MatMuls: 0 });
    expect(prepared.parts).toHaveLength(2);
    expect(prepared.path.startsWith(join(dir, '.prepared'))).toBe(true);
    const rewritten = await ops(prepared.path);
    expect(rewritten.filter((op) => op === 'MultiHeadAttention')).toHaveLength(10);
    expect(rewritten).not.toContain('Softmax');
    expect((await ops(htdemucs)).filter((op) => op === 'Softmax')).toHaveLength(10);

    // The copies are recorded as verified as they are written, with the checksums the record
    // holds, so their first load does not hash them again.
    const record = JSON.parse(readFileSync(prepared.path.replace(/\.onnx$/, '.json'), 'utf8'));
    const verified = JSON.parse(readFileSync(join(dir, VERIFIED_CACHE_FILE), 'utf8'));
    expect(verified[prepared.path]).toMatchObject({ sha256: record.sha256, size: statSync(prepared.path).size });
    for (const [i, part] of prepared.parts.entries())
      expect(verified[part]).toMatchObject({ sha256: record.parts[i].sha256, size: statSync(part).size });

    const made = statSync(prepared.path).mtimeMs;
    expect(await prepareModel(htdemucs, sha256, dir)).toEqual(prepared);
    expect(statSync(prepared.path).mtimeMs).toBe(made);
  });

  it('runs the two parts of the split graph to the same outputs as the whole graph', async () => {
    const prepared = await prepareModel(htdemucs, sha256, dir);
    const whole = await separate(prepared.path);
    const split = await separate(prepared.parts);
    // The same kernels on the same tensors: equal to the last bit, or as good as.
    expect(snrDb([whole], [split])).toBeGreaterThan(140);
    for (const part of prepared.parts) expect(statSync(part).size).toBeGreaterThan(1e6);
  });

  it("FAST's copy runs the transformer's MatMuls on int8 weights, close to the float graph", async () => {
    const float = await prepareModel(htdemucs, sha256, dir);
    const int8 = await prepareModel(htdemucs, sha256, dir, { int8MatMuls: true });
    expect(int8.rewrites).toEqual({ attention: 10, parts: 2, int8MatMuls: 30 });
    expect(int8.path).not.toBe(float.path);
    const rewritten = await ops(int8.path);
    expect(rewritten.filter((op) => op === 'DynamicQuantizeMatMul')).toHaveLength(30);
    expect(rewritten.filter((op) => op === 'MatMul').length).toBe(
      (await ops(float.path)).filter((op) => op === 'MatMul').length - 30,
    );
    const exact = await separate(float.parts);
    const quantized = await separate(int8.parts);
    // Measured 40-45 dB per source (docs/separation.md); the separation itself is ~5-10 dB SDR.
    const per = exact.length / 4;
    for (let k = 0; k < 4; k++) {
      const snr = snrDb([exact.subarray(k * per, (k + 1) * per)], [quantized.subarray(k * per, (k + 1) * per)]);
      expect(snr).toBeGreaterThan(35);
      expect(snr).toBeLessThan(100); // it did change
    }
  });

  it('makes a damaged copy again instead of loading it', async () => {
    const { path } = await prepareModel(htdemucs, sha256, dir);
    appendFileSync(path, 'x');
    const again = await prepareModel(htdemucs, sha256, dir);
    expect(again.rewrites.attention).toBe(10);
    const size = statSync(again.parts[1]!).size;
    appendFileSync(again.parts[1]!, 'x');
    const third = await prepareModel(htdemucs, sha256, dir);
    expect(third.rewrites.parts).toBe(2);
    expect(statSync(third.parts[1]!).size).toBe(size);
    expect((await ops(again.path)).filter((op) => op === 'MultiHeadAttention')).toHaveLength(10);
  });

  it('leaves a graph without that attention as it is', async () => {
    const other = join(dir, 'fake-six.onnx');
    writeFileSync(other, fakeSixStemModel());
    expect(await prepareModel(other, null, dir)).toEqual({
      path: other,
      parts: [other],
      rewrites: { attention: 0, parts: 1, int8MatMuls: 0 },
    });
  });

  // Prepares the rewritten copy and loads two graphs: minutes on a loaded machine.
  it('separates as the graph as exported does', { timeout: 600_000 }, async () => {
    const input = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
    const run = async (rewriteGraph: boolean) => {
      // int8 FAST off: this compares the float rewrites with the graph as exported.
      const engine = new SeparationEngine({
        modelsDir: join(dir, 'models'),
        cacheDir: join(dir, 'cache'),
        threads: 2,
        ...variantEngine({ graph: rewriteGraph ? 'parts' : 'as-exported', int8Fast: false }),
      });
      try {
        expect((await engine.start()).rewrites.attention).toBe(rewriteGraph ? 10 : 0);
        const r = await engine.separateFile({
          model: 'htdemucs',
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
