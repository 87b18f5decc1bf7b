/**
 * Same-process A/B of the model step: the prepared variants of HTDemucs loaded side by side in one
 * process (the engine's malloc settings), runs alternating on one real 7.8 s segment of
 * shared/audio/musdb-falcon69, so a busy spell of a shared machine hits every variant alike.
 * Prints each variant's closeness to the first (SNR per source), its times, medians and the
 * per-round ratios to the first. Variants: `float` (the engine's BEST/BALANCED graph, two parts),
 * `whole` (the same graph unsplit), `int8` (FAST's graph, int8 MatMul weights, two parts).
 *   node bin/run-ts.mjs bench/separate-ab.ts [--variants float,int8] [--rounds 6]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { decodeToPlanar } from '../support/decode-planar.ts';
import { getModelSpec } from '../src/models/registry.ts';
import { resolveModel } from '../src/models/resolve.ts';
import { HTDEMUCS_SEGMENT_FRAMES } from '../src/separation/htdemucs-shapes.ts';
import { prepareModel } from '../src/separation/prepared-model.ts';
import { SegmentModel } from '../src/separation/segment-model.ts';
import { sharedPath } from '../support/shared.ts';
import { runInEngineEnv } from './fixtures/engine-env.ts';

runInEngineEnv();

const { values } = parseArgs({
  options: { variants: { type: 'string', default: 'float,int8' }, rounds: { type: 'string', default: '6' } },
});
const names = String(values.variants).split(',');
const rounds = Number(values.rounds);
const dir = mkdtempSync(join(tmpdir(), 'sf-ab-'));
try {
  const spec = getModelSpec('htdemucs')!;
  const exported = resolveModel('htdemucs', { modelsDir: dir })!.files['htdemucs.onnx']!;
  const float = await prepareModel(exported, spec.files[0]!.sha256!, dir);
  const int8 = names.includes('int8')
    ? await prepareModel(exported, spec.files[0]!.sha256!, dir, { int8MatMuls: true })
    : undefined;
  const files: Record<string, string[]> = {
    float: float.parts,
    whole: [float.path],
    ...(int8 ? { int8: int8.parts } : {}),
  };
  const models: SegmentModel[] = [];
  for (const name of names) {
    const parts = files[name];
    if (!parts) throw new Error(`unknown variant ${name} (float, whole, int8)`);
    models.push(await SegmentModel.load(parts, spec.stems!, { executionProvider: 'cpu', threads: 2 }));
  }
  const audio = await decodeToPlanar(sharedPath('audio', 'musdb-falcon69', 'mixture.wav'));
  const n = HTDEMUCS_SEGMENT_FRAMES;
  const mix = new Float32Array(2 * n);
  for (let c = 0; c < 2; c++) mix.set(audio.channels[c]!.subarray(0, n), c * n);

  // Warm-up run of each, which also gives the outputs to compare.
  const outputs: Float32Array[] = [];
  for (const m of models) outputs.push((await m.separate(mix)).slice());
  const per = outputs[0]!.length / spec.stems!.length;
  for (let v = 1; v < models.length; v++) {
    const snr = spec.stems!.map((stem, k) => {
      let sig = 0;
      let err = 0;
      for (let i = k * per; i < (k + 1) * per; i++) {
        sig += outputs[0]![i]! ** 2;
        err += (outputs[0]![i]! - outputs[v]![i]!) ** 2;
      }
      return `${stem} ${err > 0 ? (10 * Math.log10(sig / err)).toFixed(1) : 'inf'} dB`;
    });
    console.log(`${names[v]} vs ${names[0]}: SNR ${snr.join(', ')}`);
  }

  const times: number[][] = models.map(() => []);
  for (let r = 0; r < rounds; r++) {
    // Alternate the order each round, so neither side always runs first.
    const order = models.map((_, i) => i);
    if (r % 2) order.reverse();
    for (const i of order) {
      const before = models[i]!.timings.modelMs;
      await models[i]!.separate(mix);
      times[i]!.push(models[i]!.timings.modelMs - before);
    }
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  names.forEach((name, i) => {
    console.log(
      `${name.padEnd(6)} s per segment: ${times[i]!.map((t) => (t / 1000).toFixed(2)).join(' ')}  median ${(median(times[i]!) / 1000).toFixed(2)}`,
    );
    if (i > 0) {
      const ratios = times[i]!.map((t, r) => t / times[0]![r]!);
      console.log(
        `  ${name} / ${names[0]} per round: ${ratios.map((x) => x.toFixed(3)).join(' ')}  median ${median(ratios).toFixed(3)}`,
      );
    }
  });
  for (const m of models) await m.dispose();
} finally {
  rmSync(dir, { recursive: true, force: true });
}
