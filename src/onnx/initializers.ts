import { open } from 'node:fs/promises';
import { type GraphPiece, type ModelStructure, readAt, writeModelWithGraph } from './model-file.ts';
import { lengthDelimitedHeader, ProtoWriter, readField, readVarint } from './protobuf.ts';

/** Where an initializer (GraphProto.initializer = 5, a TensorProto) lies in the file, and what it is. */
export interface InitializerInfo {
  name: string;
  dims: number[];
  /** TensorProto.DataType: 1 float, 3 int8, 7 int64, ... */
  dataType: number;
  /** Index in `ModelStructure.graphFields`. */
  fieldIndex: number;
  /** File range of raw_data, when the values are stored there (as exporters do). */
  raw?: { start: number; end: number };
}

/** The model's initializers by name; only field headers are read (TensorProto: dims 1, data_type 2, name 8, raw_data 9). */
export async function readInitializers(s: ModelStructure): Promise<Map<string, InitializerInfo>> {
  const fh = await open(s.path, 'r');
  const out = new Map<string, InitializerInfo>();
  try {
    for (let fieldIndex = 0; fieldIndex < s.graphFields.length; fieldIndex++) {
      const f = s.graphFields[fieldIndex]!;
      if (f.field !== 5) continue;
      const info: InitializerInfo = { name: '', dims: [], dataType: 0, fieldIndex };
      for (let pos = f.start; pos < f.end; ) {
        const h = readField(await readAt(fh, pos, 20), 0);
        if (h.field === 8) info.name = (await readAt(fh, pos + h.start, h.end - h.start)).toString('utf8');
        else if (h.field === 1 && h.wire === 0) info.dims.push(Number(h.value));
        else if (h.field === 1 && h.wire === 2) {
          const b = await readAt(fh, pos + h.start, h.end - h.start);
          for (let q = 0; q < b.length; ) {
            const v = readVarint(b, q);
            info.dims.push(Number(v.value));
            q = v.next;
          }
        } else if (h.field === 2) info.dataType = Number(h.value);
        else if (h.field === 9) info.raw = { start: pos + h.start, end: pos + h.end };
        pos += h.end;
      }
      out.set(info.name, info);
    }
  } finally {
    await fh.close();
  }
  return out;
}

/** The float32 values of an initializer stored as raw_data. */
export async function readFloatInitializer(s: ModelStructure, info: InitializerInfo): Promise<Float32Array> {
  if (info.dataType !== 1 || !info.raw) throw new Error(`${info.name} is not a raw float tensor`);
  const fh = await open(s.path, 'r');
  try {
    const b = await readAt(fh, info.raw.start, info.raw.end - info.raw.start);
    return new Float32Array(b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength));
  } finally {
    await fh.close();
  }
}

/** A graph field (already encoded, header included) holding a TensorProto initializer. */
export function encodeInitializer(name: string, dims: readonly number[], dataType: number, data: Uint8Array): Buffer {
  const t = new ProtoWriter();
  for (const d of dims) t.varint(1, d);
  t.varint(2, dataType).string(8, name).bytes(9, data);
  const b = t.finish();
  return Buffer.concat([lengthDelimitedHeader(5, b.length), b]);
}

/**
 * Writes a copy of the model where graph field `i` is replaced by `replace.get(i)` (encoded graph
 * fields: nodes, initializers; empty to drop it). Everything else is copied byte for byte; the file
 * appears at `dest` only when complete.
 */
export async function writeReplacedFields(
  s: ModelStructure,
  replace: Map<number, Buffer[]>,
  dest: string,
): Promise<void> {
  const pieces: GraphPiece[] = [];
  s.graphFields.forEach((f, i) => {
    const r = replace.get(i);
    if (r) pieces.push(...r);
    else pieces.push({ from: f.headerStart, to: f.end });
  });
  await writeModelWithGraph(s, pieces, dest);
}
