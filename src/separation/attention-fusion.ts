import type { NewNode, OnnxNode } from '../onnx/node.ts';
import { emptyEdit, type GraphEdit } from '../onnx/graph-edit.ts';
import { indexGraph } from '../onnx/graph-index.ts';

/**
 * Replaces the attention blocks of an HTDemucs export with onnxruntime's fused
 * `com.microsoft.MultiHeadAttention`, which runs as flash attention on the CPU: the score matrix
 * (8 heads x 2688 x 2688 floats, 231 MB, for the spectral branch) is never materialised, and the
 * attention runs at GEMM speed instead of as two strided batched MatMuls and a Softmax (measured in
 * docs/separation.md).
 *
 * The export traces torch's `F.multi_head_attention_forward` at batch 1. Each block is, from the
 * projected query/key/value `X` of shape [S, 1, D] (sequence first):
 *   Reshape [S, H, dh] -> Transpose [H, S, dh] -> Reshape [1, H, S, dh]        (k also transposed)
 *   MatMul(q * sqrt(scale), k^T * sqrt(scale)) -> Softmax -> MatMul(., v)        scale = 1/sqrt(dh)
 *   Transpose [S, 1, H, dh] -> Reshape [S, D] -> out-projection
 * Because the batch is 1, [S, 1, D] and [1, S, D] share one memory layout, so the fused node takes
 * the projected tensors through plain Reshapes and gives back [S, D]. Blocks that do not match
 * exactly (another batch size, a mask, another scale) are left as they are. The unfused path's
 * nodes are left for `dropDeadNodes`.
 */
export function fuseAttention(
  nodes: OnnxNode[],
  graphInputs: readonly { dims: readonly (number | null)[] }[],
): { edit: GraphEdit; fused: number } {
  const batchOfOne = graphInputs.length > 0 && graphInputs.every((i) => i.dims[0] === 1);
  const { from, onlyConsumer } = indexGraph(nodes);
  const only = (tensor: string | undefined, op: string) => {
    const i = onlyConsumer(tensor);
    return i !== undefined && nodes[i]?.op === op ? i : undefined;
  };
  const constant = (tensor: string | undefined) => {
    const a = from(tensor, 'Constant')?.attributes.value;
    return a?.kind === 'tensor' ? a.value.values : undefined;
  };
  const perm = (n: OnnxNode | undefined) =>
    n?.attributes.perm?.kind === 'ints' ? n.attributes.perm.value.join(',') : undefined;

  /**
   * Heads of `X` ([S, 1, D]) reshaped to [1, H, S, dh]: returns X and H. The spectral branch's
   * shapes are constants; the time branch computes them (Concat of [batch, H, S, dh]) from shapes
   * that are static because the graph's inputs are, so there the batch of 1 is the input's.
   */
  const heads = (tensor: string | undefined) => {
    const r4 = from(tensor, 'Reshape');
    const t = r4 && from(r4.inputs[0], 'Transpose');
    const r3 = t && from(t.inputs[0], 'Reshape');
    if (!r4 || !r3 || perm(t) !== '1,0,2') return undefined;
    const shape = constant(r4.inputs[1]);
    const concat = from(r4.inputs[1], 'Concat');
    const h = shape
      ? shape.length === 4 && shape[0] === 1
        ? shape[1]
        : undefined
      : batchOfOne && concat?.inputs.length === 4
        ? constant(concat.inputs[1])?.[0]
        : undefined;
    const x = r3.inputs[0];
    return h && x !== undefined ? { x, heads: h } : undefined;
  };
  /** True when `tensor` is sqrt(1/sqrt(dh)) computed from the last dimension of `q`, torch's default scale. */
  const defaultScale = (tensor: string | undefined, q: string | undefined) => {
    const div = from(from(from(tensor, 'Sqrt')?.inputs[0] ?? '', 'Cast')?.inputs[0] ?? '', 'Div');
    const one = div && constant(div.inputs[0]);
    const slice = div && from(from(from(div.inputs[1], 'Sqrt')?.inputs[0] ?? '', 'Cast')?.inputs[0] ?? '', 'Slice');
    const shape = slice && from(slice.inputs[0], 'Shape');
    return one?.length === 1 && one[0] === 1 && shape?.inputs[0] === q && constant(slice!.inputs[1])?.[0] === -1;
  };

  const edit = emptyEdit();
  let fused = 0;
  nodes.forEach((softmax, si) => {
    if (softmax.op !== 'Softmax' || softmax.domain) return;
    const scores = from(softmax.inputs[0], 'MatMul');
    const m2 = only(softmax.outputs[0], 'MatMul');
    const qMul = scores && from(scores.inputs[0], 'Mul');
    const kMul = scores && from(scores.inputs[1], 'Mul');
    const kT = kMul && from(kMul.inputs[0], 'Transpose');
    const values = m2 === undefined ? undefined : nodes[m2];
    if (!values || !qMul || !kT || perm(kT) !== '0,1,3,2' || values.inputs[0] !== softmax.outputs[0]) return;
    const q = heads(qMul.inputs[0]);
    const k = heads(kT.inputs[0]);
    const v = heads(values.inputs[1]);
    const t6 = only(values.outputs[0], 'Transpose');
    const merge = t6 === undefined ? undefined : nodes[t6];
    const r9 = only(merge?.outputs[0], 'Reshape');
    const rows = r9 === undefined ? undefined : nodes[r9];
    const rowsShape = rows?.inputs[1];
    const rowsOut = rows?.outputs[0];
    if (!q || !k || !v || r9 === undefined || perm(merge) !== '2,0,1,3') return;
    if (rowsShape === undefined || rowsOut === undefined) return;
    if (k.heads !== q.heads || v.heads !== q.heads) return;
    if (!defaultScale(qMul.inputs[1], qMul.inputs[0]) || !defaultScale(kMul.inputs[1], qMul.inputs[0])) return;

    const p = `${softmax.name || `softmax_${si}`}/fused`;
    const added: NewNode[] = [
      // [S, 1, D] -> [1, S, D] (Reshape's 0 copies that dimension of the input).
      {
        op: 'Constant',
        name: `${p}/batch_shape`,
        inputs: [],
        outputs: [`${p}/batch_shape`],
        attributes: { value_ints: [1, -1, 0] },
      },
      ...(['q', 'k', 'v'] as const).map((name) => ({
        op: 'Reshape',
        name: `${p}/${name}`,
        inputs: [{ q, k, v }[name].x, `${p}/batch_shape`],
        outputs: [`${p}/${name}`],
      })),
      {
        op: 'MultiHeadAttention',
        domain: 'com.microsoft',
        name: `${p}/attention`,
        inputs: [`${p}/q`, `${p}/k`, `${p}/v`],
        outputs: [`${p}/attention`],
        attributes: { num_heads: q.heads },
      },
      // The replaced Reshape's own target shape ([S, D]) and output name: the out-projection reads
      // the fused result unchanged.
      {
        op: 'Reshape',
        name: `${p}/rows`,
        inputs: [`${p}/attention`, rowsShape],
        outputs: [rowsOut],
      },
    ];
    edit.insertBefore.set(r9, added);
    edit.drop.add(r9);
    edit.addOpsets['com.microsoft'] = 1;
    fused++;
  });
  return { edit, fused };
}
