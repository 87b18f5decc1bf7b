import type { NewNode, OnnxNode } from '../onnx/node.ts';
import { emptyEdit, type GraphEdit } from '../onnx/graph-edit.ts';
import { indexGraph } from '../onnx/graph-index.ts';

/**
 * The storage-buffer binding size every WebGPU adapter offers: the WebGPU specification's default
 * (and minimum) `maxStorageBufferBindingSize`, 128 MiB. lavapipe offers exactly this much
 * (Vulkan `maxStorageBufferRange` 134217728).
 */
export const WEBGPU_MIN_BINDING_BYTES = 128 * 2 ** 20;

/**
 * Splits the query rows of every attention whose score matrix is larger than `limitBytes`, so that
 * no Softmax reads or writes a tensor above it: `softmax(q k^T) v` becomes, for each block of rows
 * `q_i`, `softmax(q_i k^T) v`, concatenated along the rows. The same arithmetic (a Softmax is
 * row-wise), in smaller pieces.
 *
 * Why: onnxruntime 1.30's WebGPU Softmax is wrong past the first `maxStorageBufferBindingSize` bytes
 * of its input, silently (docs/separation.md, "WebGPU: the divergence"). HTDemucs' three spectral
 * self-attentions have 8 x 2688 x 2688 scores (220.5 MiB); on lavapipe (128 MiB) their rows past
 * byte 128 MiB came out as garbage, and the stems with them. Split in two, each is 110 MiB.
 *
 * Matches the export of torch's `F.multi_head_attention_forward` as attention-fusion.ts does:
 * `MatMul(q, k^T) -> Softmax(last axis) -> MatMul(., v)`, where q and k^T are read back to a Reshape
 * of constant shape (through a Mul by the scale and, for k, a Transpose). Blocks whose shapes are
 * computed at run time are left as they are. The Split takes its sizes as an input (opset 13 on).
 */
export function splitAttentionRows(
  nodes: readonly OnnxNode[],
  limitBytes = WEBGPU_MIN_BINDING_BYTES,
): { edit: GraphEdit; split: number } {
  const { producerOf, from, onlyConsumer } = indexGraph(nodes);
  /** Static dimensions of `tensor`, read back through a scaling Mul and Transposes to a constant-shape Reshape. */
  const dimsOf = (tensor: string | undefined): number[] | undefined => {
    const mul = from(tensor, 'Mul');
    if (mul) return dimsOf(mul.inputs[0]);
    const t = from(tensor, 'Transpose');
    const perm = t?.attributes.perm;
    if (t && perm?.kind === 'ints') {
      const d = dimsOf(t.inputs[0]);
      return d && perm.value.length === d.length ? perm.value.map((p) => d[p]!) : undefined;
    }
    const r = from(tensor, 'Reshape');
    const shape = from(r?.inputs[1], 'Constant')?.attributes.value;
    if (shape?.kind !== 'tensor' || shape.value.values.some((d) => d <= 0)) return undefined;
    return shape.value.values;
  };

  const edit = emptyEdit();
  let split = 0;
  nodes.forEach((softmax, si) => {
    if (softmax.op !== 'Softmax' || softmax.domain) return;
    const scoresAt = producerOf(softmax.inputs[0]);
    const valuesAt = onlyConsumer(softmax.outputs[0]);
    const scores = scoresAt === undefined ? undefined : nodes[scoresAt];
    const values = valuesAt === undefined ? undefined : nodes[valuesAt];
    if (scoresAt === undefined || valuesAt === undefined || scores?.op !== 'MatMul' || scores.domain) return;
    if (values?.op !== 'MatMul' || values.domain || values.inputs[0] !== softmax.outputs[0]) return;
    if (onlyConsumer(scores.outputs[0]) !== si) return;
    const [q, k] = scores.inputs;
    const qDims = dimsOf(q);
    const kDims = dimsOf(k);
    if (!q || !k || !qDims || !kDims || qDims.length !== kDims.length || qDims.length < 2) return;
    const rank = qDims.length;
    const axis = softmax.attributes.axis?.kind === 'int' ? softmax.attributes.axis.value : -1;
    if (axis !== -1 && axis !== rank - 1) return;
    const rows = qDims[rank - 2]!;
    const bytes = [...qDims.slice(0, -1), kDims[rank - 1]!].reduce((a, b) => a * b, 4);
    if (bytes <= limitBytes) return;
    let parts = Math.ceil(bytes / limitBytes);
    while (rows % parts !== 0) parts++;

    const p = `${softmax.name || `softmax_${si}`}/rows`;
    const piece = (name: string) => Array.from({ length: parts }, (_, i) => `${p}/${name}${i}`);
    const [qs, ss, ps, os] = [piece('q'), piece('scores'), piece('probs'), piece('out')];
    const added: NewNode[] = [
      {
        op: 'Constant',
        name: `${p}/sizes`,
        inputs: [],
        outputs: [`${p}/sizes`],
        attributes: { value_ints: Array(parts).fill(rows / parts) },
      },
      { op: 'Split', name: `${p}/split`, inputs: [q, `${p}/sizes`], outputs: qs, attributes: { axis: rank - 2 } },
      ...qs.flatMap((qi, i): NewNode[] => [
        { op: 'MatMul', name: ss[i]!, inputs: [qi, k], outputs: [ss[i]!] },
        { op: 'Softmax', name: ps[i]!, inputs: [ss[i]!], outputs: [ps[i]!], attributes: { axis: -1 } },
        { op: 'MatMul', name: os[i]!, inputs: [ps[i]!, values.inputs[1]!], outputs: [os[i]!] },
      ]),
      { op: 'Concat', name: `${p}/concat`, inputs: os, outputs: [values.outputs[0]!], attributes: { axis: rank - 2 } },
    ];
    edit.insertBefore.set(valuesAt, added);
    for (const i of [scoresAt, si, valuesAt]) edit.drop.add(i);
    split++;
  });
  return { edit, split };
}
