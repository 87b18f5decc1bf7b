import * as ort from 'onnxruntime-node';
import { readModelStructure } from '../onnx/model-file.ts';
import { splitGraph, writeModelPart, type TensorDecl } from '../onnx/graph-split.ts';

/**
 * HTDemucs run as two onnxruntime sessions, split where the decoders start (docs/separation.md,
 * "Memory"). In one session, onnxruntime's allocation planner gives a tensor of the decoder the
 * buffer of an encoder tensor of the same size that died long before (the U-Net mirrors its sizes),
 * so those buffers stay allocated through the transformer: measured, the process grew by 1.6 GB
 * during a segment and peaked in the transformer. Split, the first session (encoders and
 * transformer) frees all of its buffers when it returns, and the second (decoders) allocates its
 * own: the same outputs bit for bit, 0.7 GB less peak. What crosses are the skip connections and
 * the transformer's outputs (16 tensors, 110 MB).
 */
const DECODER = /^\/t?decoder\./;

const ELEMENT_TYPES: Record<string, number> = { float32: 1, uint8: 2, int8: 3, int32: 6, int64: 7, bool: 9 };

/** Writes the two parts of `modelPath` to `firstPath` and `secondPath`; false (nothing written) for a graph without HTDemucs' decoders. */
export async function splitAtDecoders(modelPath: string, firstPath: string, secondPath: string): Promise<boolean> {
  const s = await readModelStructure(modelPath);
  if (!s.nodes.some((n) => DECODER.test(n.name))) return false;
  const split = splitGraph(
    s.nodes,
    (n) => DECODER.test(n.name),
    s.graphInputs.map((x) => x.name),
    s.graphOutputs,
  );
  if (split.firstOutputs.length > 0 || split.cut.length === 0) return false;
  const inputs = (names: string[]): TensorDecl[] =>
    names.map((name) => ({ name, elemType: 1, dims: s.graphInputs.find((x) => x.name === name)?.dims }));
  // The first part's outputs are declared by name only; onnxruntime infers their types and shapes,
  // which then declare the second part's inputs.
  await writeModelPart(
    s,
    split.first,
    inputs(split.firstInputs),
    split.cut.map((name) => ({ name })),
    firstPath,
  );
  const probe = await ort.InferenceSession.create(firstPath, { graphOptimizationLevel: 'basic' });
  let cut: TensorDecl[];
  try {
    cut = split.cut.map((name) => {
      const m = probe.outputMetadata.find((x) => x.name === name);
      const elemType = m?.isTensor ? ELEMENT_TYPES[m.type] : undefined;
      if (!m?.isTensor || elemType === undefined)
        throw new Error(`cannot split ${modelPath}: ${name} has no tensor type`);
      return { name, elemType, dims: m.shape.map((d) => (typeof d === 'number' && d >= 0 ? d : null)) };
    });
  } finally {
    await probe.release();
  }
  await writeModelPart(
    s,
    split.second,
    [...inputs(split.secondInputs), ...cut],
    split.secondOutputs.map((name) => ({ name })),
    secondPath,
  );
  return true;
}
