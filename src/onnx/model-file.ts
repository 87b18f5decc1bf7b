import { open, rename, rm, type FileHandle } from 'node:fs/promises';
import type { GraphEdit } from './graph-edit.ts';
import { decodeNode, encodeNode, type OnnxNode } from './node.ts';
import { lengthDelimitedHeader, ProtoWriter, readField, readFields } from './protobuf.ts';

/**
 * An ONNX model file walked in place: the graph's nodes are decoded (they are small), while the
 * weights (initializers, nearly all of the bytes) are only located, never read, so preparing a
 * 170 MB model costs a few MB of memory. onnx.proto numbering: ModelProto.graph = 7,
 * ModelProto.opset_import = 8 (domain 1, version 2), GraphProto.node = 1.
 */
export interface ModelStructure {
  path: string;
  /** Top-level fields of ModelProto: byte ranges in the file, header included. */
  modelFields: FileField[];
  /** The graph's fields, in order. */
  graphFields: FileField[];
  /** The decoded nodes, in graph order; `nodeField[i]` is node i's index in graphFields. */
  nodes: OnnxNode[];
  nodeField: number[];
  /** Opset domains the model imports. */
  opsetDomains: string[];
  /** Names of the graph's outputs (GraphProto.output = 12, ValueInfoProto.name = 1). */
  graphOutputs: string[];
  /** The graph's inputs with their static dimensions (null where a dimension is symbolic). */
  graphInputs: { name: string; dims: (number | null)[] }[];
}

export interface FileField {
  field: number;
  /** Header start (the field's first byte) and value range. */
  headerStart: number;
  start: number;
  end: number;
}

/** Up to `length` bytes of the file from `pos` (fewer at its end). */
export async function readAt(fh: FileHandle, pos: number, length: number): Promise<Buffer> {
  const buf = Buffer.alloc(length);
  const { bytesRead } = await fh.read(buf, 0, length, pos);
  return buf.subarray(0, bytesRead);
}

/** The fields of the message stored at file range [start, end). */
async function fieldsAt(fh: FileHandle, start: number, end: number): Promise<FileField[]> {
  const fields: FileField[] = [];
  let pos = start;
  while (pos < end) {
    // A key and a length take at most 20 bytes.
    const f = readField(await readAt(fh, pos, 20), 0);
    const valueEnd = pos + f.end;
    if (valueEnd > end) throw new Error(`truncated model file at byte ${pos}`);
    fields.push({ field: f.field, headerStart: pos, start: pos + f.start, end: valueEnd });
    pos = valueEnd;
  }
  return fields;
}

/** ValueInfoProto: name 1, type 2 -> TypeProto.tensor_type 1 -> shape 2 -> dim 1 -> dim_value 1. */
function valueInfo(buf: Buffer): { name: string; dims: (number | null)[] } {
  const fields = readFields(buf);
  const name = fields.find((f) => f.field === 1);
  const sub = (f: { start: number; end: number } | undefined, n: number) =>
    f ? readFields(buf, f.start, f.end).filter((x) => x.field === n) : [];
  const tensor = sub(
    fields.find((f) => f.field === 2),
    1,
  )[0];
  const shape = sub(tensor, 2)[0];
  const dims = sub(shape, 1).map((d) => {
    const v = sub(d, 1)[0];
    return v ? Number(v.value) : null;
  });
  return { name: name ? buf.toString('utf8', name.start, name.end) : '', dims };
}

/** A string field of the small message stored in `f` ('' when absent). */
async function stringField(fh: FileHandle, f: FileField, field: number): Promise<string> {
  const body = await readAt(fh, f.start, f.end - f.start);
  const found = readFields(body).find((x) => x.field === field);
  return found ? body.toString('utf8', found.start, found.end) : '';
}

export async function readModelStructure(path: string): Promise<ModelStructure> {
  const fh = await open(path, 'r');
  try {
    const { size } = await fh.stat();
    const modelFields = await fieldsAt(fh, 0, size);
    const graph = modelFields.find((f) => f.field === 7);
    if (!graph) throw new Error(`${path} has no graph`);
    const graphFields = await fieldsAt(fh, graph.start, graph.end);
    const nodes: OnnxNode[] = [];
    const nodeField: number[] = [];
    const graphOutputs: string[] = [];
    const graphInputs: ModelStructure['graphInputs'] = [];
    for (const [i, f] of graphFields.entries()) {
      if (f.field === 1) {
        nodes.push(decodeNode(await readAt(fh, f.start, f.end - f.start)));
        nodeField.push(i);
      } else if (f.field === 12) {
        graphOutputs.push(await stringField(fh, f, 1));
      } else if (f.field === 11) {
        graphInputs.push(valueInfo(await readAt(fh, f.start, f.end - f.start)));
      }
    }
    const opsetDomains: string[] = [];
    for (const f of modelFields.filter((x) => x.field === 8)) opsetDomains.push(await stringField(fh, f, 1));
    return { path, modelFields, graphFields, nodes, nodeField, opsetDomains, graphOutputs, graphInputs };
  } finally {
    await fh.close();
  }
}

/**
 * Writes a copy of the model with the edit applied. Everything else (weights, inputs, outputs,
 * metadata) is copied byte for byte. The file appears at `dest` only when complete.
 */
export async function writeEditedModel(s: ModelStructure, edit: GraphEdit, dest: string): Promise<void> {
  const kept = new Set(s.graphFields.map((_, i) => i));
  s.nodeField.forEach((fieldIndex, nodeIndex) => {
    if (edit.drop.has(nodeIndex)) kept.delete(fieldIndex);
  });
  const nodeAt = new Map(s.nodeField.map((fieldIndex, nodeIndex) => [fieldIndex, nodeIndex]));
  const inserted = (nodeIndex: number) =>
    (edit.insertBefore.get(nodeIndex) ?? []).map((n) => {
      const b = encodeNode(n);
      return Buffer.concat([lengthDelimitedHeader(1, b.length), b]);
    });
  // The graph's pieces in order: copied ranges of the source file, or new bytes.
  const pieces: GraphPiece[] = [];
  s.graphFields.forEach((f, i) => {
    const nodeIndex = nodeAt.get(i);
    if (nodeIndex !== undefined) pieces.push(...inserted(nodeIndex));
    if (kept.has(i)) pieces.push({ from: f.headerStart, to: f.end });
  });
  pieces.push(...inserted(s.nodes.length));
  const opsets = Object.entries(edit.addOpsets)
    .filter(([domain]) => !s.opsetDomains.includes(domain))
    .map(([domain, version]) => new ProtoWriter().message(8, (o) => o.string(1, domain).varint(2, version)).finish());
  await writeModelWithGraph(s, pieces, dest, opsets);
}

/** A graph's content in order: a byte range copied from the source file, or new bytes. */
export type GraphPiece = Buffer | { from: number; to: number };

/**
 * Writes a copy of the model whose graph is `pieces`, followed by the `extra` model fields. Every
 * other model field is copied byte for byte; the file appears at `dest` only when complete.
 */
export async function writeModelWithGraph(
  s: ModelStructure,
  pieces: readonly GraphPiece[],
  dest: string,
  extra: readonly Buffer[] = [],
): Promise<void> {
  const graphLength = pieces.reduce((n, p) => n + (Buffer.isBuffer(p) ? p.length : p.to - p.from), 0);
  const tmp = `${dest}.tmp-${process.pid}`;
  const src = await open(s.path, 'r');
  const out = await open(tmp, 'w');
  try {
    const copy = async (from: number, to: number) => {
      for (let pos = from; pos < to; ) {
        const chunk = await readAt(src, pos, Math.min(4 << 20, to - pos));
        if (chunk.length === 0) throw new Error(`${s.path} changed while it was being read`);
        await out.write(chunk);
        pos += chunk.length;
      }
    };
    for (const f of s.modelFields) {
      if (f.field !== 7) {
        await copy(f.headerStart, f.end);
        continue;
      }
      await out.write(lengthDelimitedHeader(7, graphLength));
      for (const p of pieces) {
        if (Buffer.isBuffer(p)) await out.write(p);
        else await copy(p.from, p.to);
      }
    }
    for (const b of extra) await out.write(b);
    await out.close();
    await rename(tmp, dest);
  } catch (err) {
    await out.close().catch(() => undefined);
    await rm(tmp, { force: true });
    throw err;
  } finally {
    await src.close();
  }
}
