import { readInitializers } from './initializers.ts';
import { type GraphPiece, type ModelStructure, writeModelWithGraph } from './model-file.ts';
import type { OnnxNode } from './node.ts';
import { lengthDelimitedHeader, ProtoWriter } from './protobuf.ts';

/**
 * Splitting a graph in two models run one after the other: `first` computes everything the second
 * part needs, `second` starts at the seed nodes and holds everything downstream of them. The tensors
 * that cross (`cut`) become outputs of the first and inputs of the second. Constant nodes are
 * copied into the part that reads them (into both when both do), so no constant crosses.
 */
export interface GraphSplit {
  first: number[];
  second: number[];
  /** Tensors produced in the first part and read in the second, in production order. */
  cut: string[];
  /** The graph's inputs each part reads, and the graph's outputs each part produces. */
  firstInputs: string[];
  secondInputs: string[];
  firstOutputs: string[];
  secondOutputs: string[];
}

export function splitGraph(
  nodes: readonly OnnxNode[],
  isSecondSeed: (n: OnnxNode) => boolean,
  graphInputs: readonly string[],
  graphOutputs: readonly string[],
): GraphSplit {
  const producer = new Map<string, number>();
  nodes.forEach((n, i) => {
    for (const o of n.outputs) producer.set(o, i);
  });
  const inSecond = new Set<number>();
  // Downstream closure of the seeds (nodes are in topological order).
  nodes.forEach((n, i) => {
    if (isSecondSeed(n) || n.inputs.some((x) => inSecond.has(producer.get(x) ?? -1))) inSecond.add(i);
  });
  const isConstant = (i: number) => nodes[i]?.op === 'Constant' && nodes[i]?.inputs.length === 0;
  const reads = (part: number[]) => new Set(part.flatMap((i) => nodes[i]?.inputs ?? []));
  const secondCore = nodes.map((_, i) => i).filter((i) => inSecond.has(i) && !isConstant(i));
  const firstCore = nodes.map((_, i) => i).filter((i) => !inSecond.has(i) && !isConstant(i));
  const withConstants = (core: number[]) => {
    const r = reads(core);
    const used = new Set(core);
    nodes.forEach((n, i) => {
      if (isConstant(i) && n.outputs.some((o) => r.has(o))) used.add(i);
    });
    return [...used].sort((a, b) => a - b);
  };
  const first = withConstants(firstCore);
  const second = withConstants(secondCore);
  const secondReads = reads(second);
  const cut: string[] = [];
  for (const i of firstCore) for (const o of nodes[i]?.outputs ?? []) if (secondReads.has(o)) cut.push(o);
  const firstReads = reads(first);
  const produced = (part: number[]) => new Set(part.flatMap((i) => nodes[i]?.outputs ?? []));
  const firstProduced = produced(first);
  const secondProduced = produced(second);
  for (const o of graphOutputs) {
    if (!firstProduced.has(o) && !secondProduced.has(o)) throw new Error(`graph output ${o} has no producer`);
  }
  return {
    first,
    second,
    cut,
    firstInputs: graphInputs.filter((x) => firstReads.has(x)),
    secondInputs: graphInputs.filter((x) => secondReads.has(x)),
    firstOutputs: graphOutputs.filter((o) => firstProduced.has(o) && !secondProduced.has(o)),
    secondOutputs: graphOutputs.filter((o) => secondProduced.has(o)),
  };
}

/** A graph input or output to declare: element type (TensorProto.DataType) and static dimensions. */
export interface TensorDecl {
  name: string;
  /** 1 float, 7 int64, ... ; omitted: no type written (onnxruntime infers a graph output's type). */
  elemType?: number;
  /** Static dimensions; null (or a negative number) writes a dimension of unknown size. */
  dims?: readonly (number | null)[];
}

/** ValueInfoProto: name 1, type 2 -> TypeProto.tensor_type 1 -> elem_type 1, shape 2 -> dim 1 -> dim_value 1. */
function encodeValueInfo(d: TensorDecl): Buffer {
  const w = new ProtoWriter().string(1, d.name);
  if (d.elemType !== undefined) {
    const dims = d.dims;
    w.message(2, (t) =>
      t.message(1, (tt) => {
        tt.varint(1, d.elemType!);
        if (dims)
          tt.message(2, (s) => {
            for (const v of dims) {
              s.message(1, (dim) => {
                if (v !== null && v >= 0) dim.varint(1, v);
              });
            }
          });
      }),
    );
  }
  return w.finish();
}

/**
 * Writes one part of a model: the given nodes (copied byte for byte), the initializers they read,
 * and the declared inputs and outputs. The graph's other fields are kept, except value_info
 * (onnxruntime infers shapes again). The file appears at `dest` only when complete.
 */
export async function writeModelPart(
  s: ModelStructure,
  nodeIndexes: readonly number[],
  inputs: readonly TensorDecl[],
  outputs: readonly TensorDecl[],
  dest: string,
): Promise<void> {
  const read = new Set(nodeIndexes.flatMap((i) => s.nodes[i]?.inputs ?? []));
  const keepNodeField = new Set(nodeIndexes.map((i) => s.nodeField[i]));
  // Initializers by field index (only their headers are read, never the weights).
  const initializerAt = new Map([...(await readInitializers(s)).values()].map((x) => [x.fieldIndex, x.name]));
  const pieces: GraphPiece[] = [];
  // Nodes and initializers of this part; inputs (11), outputs (12) and value_info (13) are declared anew.
  const kept = (field: number, i: number) => {
    if (field === 1) return keepNodeField.has(i);
    if (field === 5) return read.has(initializerAt.get(i) ?? '');
    return field !== 11 && field !== 12 && field !== 13;
  };
  s.graphFields.forEach((f, i) => {
    if (kept(f.field, i)) pieces.push({ from: f.headerStart, to: f.end });
  });
  for (const d of inputs) {
    const b = encodeValueInfo(d);
    pieces.push(Buffer.concat([lengthDelimitedHeader(11, b.length), b]));
  }
  for (const d of outputs) {
    const b = encodeValueInfo(d);
    pieces.push(Buffer.concat([lengthDelimitedHeader(12, b.length), b]));
  }
  await writeModelWithGraph(s, pieces, dest);
}
