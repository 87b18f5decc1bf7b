import { ProtoWriter, readFields, readVarint, type Field } from './protobuf.ts';

/** A NodeProto, decoded as far as graph rewrites need (onnx.proto: input 1, output 2, name 3, op_type 4, attribute 5, domain 7). */
export interface OnnxNode {
  op: string;
  domain: string;
  name: string;
  inputs: string[];
  outputs: string[];
  /** Decoded attributes: integers, integer lists and tensors (`value` of a Constant). */
  attributes: Record<string, OnnxAttribute>;
}

export type OnnxAttribute =
  | { kind: 'int'; value: number }
  | { kind: 'ints'; value: number[] }
  | { kind: 'tensor'; value: ConstantTensor }
  | { kind: 'other' };

/** A small constant tensor (int64 or float32), as shape constants and scalars are stored. */
export interface ConstantTensor {
  dims: number[];
  values: number[];
}

const utf8 = (b: Uint8Array, f: Field) =>
  Buffer.from(b.buffer, b.byteOffset + f.start, f.end - f.start).toString('utf8');

/** Varints of a repeated integer field, whether written packed (one length-delimited run) or one by one. */
function integers(buf: Uint8Array, fields: Field[], field: number): number[] {
  const out: number[] = [];
  for (const f of fields) {
    if (f.field !== field) continue;
    if (f.wire === 0) out.push(Number(BigInt.asIntN(64, f.value!)));
    else {
      for (let p = f.start; p < f.end; ) {
        const v = readVarint(buf, p);
        out.push(Number(BigInt.asIntN(64, v.value)));
        p = v.next;
      }
    }
  }
  return out;
}

/** TensorProto (dims 1, data_type 2, float_data 4, int64_data 7, raw_data 9) of int64 or float32 data. */
function decodeTensor(buf: Uint8Array, start: number, end: number): ConstantTensor | undefined {
  const fields = readFields(buf, start, end);
  const dims = integers(buf, fields, 1);
  const type = Number(fields.find((f) => f.field === 2)?.value ?? 0n);
  const raw = fields.find((f) => f.field === 9);
  const view = raw ? new DataView(buf.buffer, buf.byteOffset + raw.start, raw.end - raw.start) : undefined;
  if (type === 7) {
    if (!view) return { dims, values: integers(buf, fields, 7) };
    return {
      dims,
      values: Array.from({ length: view.byteLength / 8 }, (_, i) => Number(view.getBigInt64(i * 8, true))),
    };
  }
  if (type === 1) {
    if (view)
      return { dims, values: Array.from({ length: view.byteLength / 4 }, (_, i) => view.getFloat32(i * 4, true)) };
    const packed = fields.filter((f) => f.field === 4);
    const values: number[] = [];
    for (const f of packed) {
      const v = new DataView(buf.buffer, buf.byteOffset + f.start, f.end - f.start);
      for (let i = 0; i < v.byteLength; i += 4) values.push(v.getFloat32(i, true));
    }
    return { dims, values };
  }
  return undefined;
}

/** AttributeProto: name 1, i 3, t 5, ints 8. */
function decodeAttribute(buf: Uint8Array, start: number, end: number): [string, OnnxAttribute] {
  const fields = readFields(buf, start, end);
  const name = fields.find((f) => f.field === 1);
  const key = name ? utf8(buf, name) : '';
  const i = fields.find((x) => x.field === 3);
  const t = fields.find((x) => x.field === 5);
  if (t) {
    const value = decodeTensor(buf, t.start, t.end);
    return [key, value ? { kind: 'tensor', value } : { kind: 'other' }];
  }
  if (fields.some((x) => x.field === 8)) return [key, { kind: 'ints', value: integers(buf, fields, 8) }];
  if (i) return [key, { kind: 'int', value: Number(BigInt.asIntN(64, i.value!)) }];
  return [key, { kind: 'other' }];
}

export function decodeNode(buf: Uint8Array): OnnxNode {
  const fields = readFields(buf);
  const strings = (n: number) => fields.filter((f) => f.field === n).map((f) => utf8(buf, f));
  return {
    inputs: strings(1),
    outputs: strings(2),
    name: strings(3)[0] ?? '',
    op: strings(4)[0] ?? '',
    domain: strings(7)[0] ?? '',
    attributes: Object.fromEntries(
      fields.filter((f) => f.field === 5).map((f) => decodeAttribute(buf, f.start, f.end)),
    ),
  };
}

/** A new node to write: integer and integer-list attributes. */
export interface NewNode {
  op: string;
  domain?: string;
  name: string;
  inputs: string[];
  outputs: string[];
  attributes?: Record<string, number | readonly number[]>;
}

/** Encodes a NodeProto (attribute types: 2 INT, 7 INTS). */
export function encodeNode(n: NewNode): Buffer {
  const w = new ProtoWriter();
  for (const input of n.inputs) w.string(1, input);
  for (const output of n.outputs) w.string(2, output);
  w.string(3, n.name).string(4, n.op);
  for (const [name, value] of Object.entries(n.attributes ?? {})) {
    w.message(5, (a) => {
      a.string(1, name);
      if (typeof value === 'number') a.varint(3, value).varint(20, 2);
      else {
        for (const v of value) a.varint(8, v);
        a.varint(20, 7);
      }
    });
  }
  if (n.domain) w.string(7, n.domain);
  return w.finish();
}
