import { readModelStructure } from '../onnx/model-file.ts';
import { encodeNode } from '../onnx/node.ts';
import { lengthDelimitedHeader } from '../onnx/protobuf.ts';
import {
  encodeInitializer,
  readFloatInitializer,
  readInitializers,
  writeReplacedFields,
} from '../onnx/initializers.ts';

/**
 * int8 weights for the FAST tier: every MatMul whose second input is a 2-D float weight becomes
 * onnxruntime's `com.microsoft.DynamicQuantizeMatMul` with that weight stored as int8, one
 * symmetric scale per output column (zero point 0); the activations are quantized to uint8 per run
 * by the operator itself. In HTDemucs these are the transformer's 30 linear layers (27.3 M of the
 * 42 M weights). Measured (docs/separation.md): outputs 40-45 dB SNR from the float graph's on a
 * real segment; the model step 8 % faster than the float graph's on a quiet machine (2.29 against
 * 2.48 s per segment), 14-27 % in loaded same-process A/B runs. BEST and BALANCED keep the float
 * graph (the parity test's path).
 * Reads `modelPath`, writes the quantized copy to `dest`; returns how many MatMuls it changed
 * (0: nothing written).
 */
export async function quantizeMatMuls(modelPath: string, dest: string): Promise<number> {
  const s = await readModelStructure(modelPath);
  const inits = await readInitializers(s);
  const replace = new Map<number, Buffer[]>();
  const readers = new Map<string, number>();
  for (const n of s.nodes) for (const x of n.inputs) readers.set(x, (readers.get(x) ?? 0) + 1);
  let changed = 0;
  for (const [i, n] of s.nodes.entries()) {
    const weight = n.op === 'MatMul' && !n.domain ? inits.get(n.inputs[1] ?? '') : undefined;
    if (weight?.dataType !== 1 || weight.dims.length !== 2 || !weight.raw) continue;
    // A weight shared with another node keeps its float copy for that node.
    const shared = (readers.get(weight.name) ?? 0) > 1;
    const [k, cols] = weight.dims as [number, number];
    const { q, scale } = quantizeColumns(await readFloatInitializer(s, weight), k, cols);
    const base = `${weight.name}_int8`;
    const node = encodeNode({
      op: 'DynamicQuantizeMatMul',
      domain: 'com.microsoft',
      name: `${n.name}_int8`,
      inputs: [n.inputs[0]!, base, `${base}_scale`, `${base}_zero_point`],
      outputs: n.outputs,
    });
    replace.set(s.nodeField[i]!, [
      Buffer.concat([lengthDelimitedHeader(1, node.length), node]),
      encodeInitializer(base, [k, cols], 3, new Uint8Array(q.buffer)),
      encodeInitializer(`${base}_scale`, [cols], 1, new Uint8Array(scale.buffer)),
      encodeInitializer(`${base}_zero_point`, [cols], 3, new Uint8Array(cols)),
    ]);
    if (!shared) replace.set(weight.fieldIndex, []);
    changed++;
  }
  if (changed > 0) await writeReplacedFields(s, replace, dest);
  return changed;
}

/** Symmetric int8 per column of a row-major [k, cols] matrix: w ~= q * scale[col]. */
export function quantizeColumns(w: Float32Array, k: number, cols: number): { q: Int8Array; scale: Float32Array } {
  const scale = new Float32Array(cols);
  for (let r = 0; r < k; r++) for (let c = 0; c < cols; c++) scale[c] = Math.max(scale[c]!, Math.abs(w[r * cols + c]!));
  for (let c = 0; c < cols; c++) scale[c] = scale[c]! > 0 ? scale[c]! / 127 : 1;
  const q = new Int8Array(k * cols);
  for (let r = 0; r < k; r++) for (let c = 0; c < cols; c++) q[r * cols + c] = Math.round(w[r * cols + c]! / scale[c]!);
  return { q, scale };
}
