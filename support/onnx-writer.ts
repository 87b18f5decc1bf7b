import { encodeNode, type NewNode } from '../src/onnx/node.ts';
import { ProtoWriter } from '../src/onnx/protobuf.ts';

/**
 * Builds small ONNX models in tests and benchmarks (onnx/onnx.proto numbering): stand-ins with
 * the shapes of weights that cannot be had here, and single-operator models that measure the
 * machine.
 */

/** Tensor dimensions; a string is a named (dynamic) dimension of a graph input or output, such as a batch. */
export type Dims = readonly (number | string)[];

export interface OnnxTensor {
  name: string;
  dims: readonly number[];
  /** float32 or int64 data, stored as raw_data. */
  data: Float32Array | BigInt64Array;
}

export interface OnnxGraph {
  name: string;
  inputs: { name: string; dims: Dims }[];
  outputs: { name: string; dims: Dims }[];
  initializers: OnnxTensor[];
  nodes: Omit<NewNode, 'name'>[];
  /** Default opset 17. */
  opset?: number;
}

const FLOAT = 1;
const INT64 = 7;

/** ValueInfoProto of a float tensor: name 1, type 2 -> tensor_type 1 (elem_type 1, shape 2 -> dim 1 -> dim_value 1 or dim_param 2). */
function valueInfo(w: ProtoWriter, v: { name: string; dims: Dims }): void {
  w.string(1, v.name).message(2, (type) =>
    type.message(1, (tensor) => {
      tensor.varint(1, FLOAT);
      tensor.message(2, (shape) => {
        for (const d of v.dims)
          shape.message(1, (dim) => (typeof d === 'number' ? dim.varint(1, d) : dim.string(2, d)));
      });
    }),
  );
}

/** Encodes a graph as an ONNX model file's bytes (ModelProto: ir_version 1, producer 2, graph 7, opset_import 8). */
export function encodeOnnxModel(g: OnnxGraph): Buffer {
  const model = new ProtoWriter();
  model.varint(1, 8);
  model.string(2, 'stemforge-tests');
  model.message(7, (graph) => {
    g.nodes.forEach((n, i) => {
      graph.bytes(1, encodeNode({ ...n, name: `${n.op}_${i}` }));
    });
    graph.string(2, g.name);
    for (const t of g.initializers) {
      // TensorProto: dims 1, data_type 2, name 8, raw_data 9.
      graph.message(5, (tensor) => {
        for (const d of t.dims) tensor.varint(1, d);
        tensor.varint(2, t.data instanceof Float32Array ? FLOAT : INT64);
        tensor.string(8, t.name);
        tensor.bytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
      });
    }
    for (const v of g.inputs) graph.message(11, (w) => valueInfo(w, v));
    for (const v of g.outputs) graph.message(12, (w) => valueInfo(w, v));
  });
  model.message(8, (opset) => opset.string(1, '').varint(2, g.opset ?? 17));
  for (const domain of new Set(g.nodes.map((n) => n.domain).filter(Boolean))) {
    model.message(8, (opset) => opset.string(1, domain!).varint(2, 1));
  }
  return model.finish();
}
