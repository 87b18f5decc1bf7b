/**
 * The protocol-buffers wire format, as much of it as ONNX files need: varints and length-delimited
 * fields (https://protobuf.dev/programming-guides/encoding/). Enough to walk a model's structure and
 * to write small messages; field meanings live with the callers (onnx/onnx.proto numbering).
 */

/** One field of a message: its number, wire type, and either a varint value or a byte range. */
export interface Field {
  field: number;
  wire: number;
  /** Varint value (wire type 0). */
  value?: bigint;
  /** Value bytes [start, end) for length-delimited and fixed-size fields. */
  start: number;
  end: number;
}

/** Reads a varint at `pos`; returns the value and the position after it. */
export function readVarint(buf: Uint8Array, pos: number): { value: bigint; next: number } {
  let value = 0n;
  let shift = 0n;
  for (;;) {
    if (pos >= buf.length) throw new Error('truncated varint');
    const b = buf[pos++]!;
    value |= BigInt(b & 0x7f) << shift;
    if (!(b & 0x80)) return { value, next: pos };
    shift += 7n;
  }
}

/**
 * The field starting at `buf[pos]`. Only the key and (for length-delimited fields) the length are
 * read, so `buf` may hold just the field's first bytes: `end` can lie beyond it.
 */
export function readField(buf: Uint8Array, pos: number): Field {
  const key = readVarint(buf, pos);
  const field = Number(key.value >> 3n);
  const wire = Number(key.value & 7n);
  if (wire === 0) {
    const v = readVarint(buf, key.next);
    return { field, wire, value: v.value, start: key.next, end: v.next };
  }
  if (wire === 2) {
    const len = readVarint(buf, key.next);
    return { field, wire, start: len.next, end: len.next + Number(len.value) };
  }
  if (wire === 1 || wire === 5) return { field, wire, start: key.next, end: key.next + (wire === 1 ? 8 : 4) };
  throw new Error(`unsupported protobuf wire type ${wire}`);
}

/** Splits `buf[start, end)` into its fields, in order. */
export function readFields(buf: Uint8Array, start = 0, end = buf.length): Field[] {
  const fields: Field[] = [];
  for (let pos = start; pos < end; ) {
    const f = readField(buf, pos);
    fields.push(f);
    pos = f.end;
  }
  if (fields.length > 0 && fields.at(-1)?.end !== end) throw new Error('protobuf message overruns its length');
  return fields;
}

export function encodeVarint(v: number | bigint): Buffer {
  // Negative int64 values are written as their 64-bit two's complement (ten bytes).
  let x = BigInt(v);
  if (x < 0n) x += 1n << 64n;
  const out: number[] = [];
  do {
    let b = Number(x & 0x7fn);
    x >>= 7n;
    if (x > 0n) b |= 0x80;
    out.push(b);
  } while (x > 0n);
  return Buffer.from(out);
}

/** The header of a length-delimited field: key and length. */
export function lengthDelimitedHeader(field: number, length: number): Buffer {
  return Buffer.concat([encodeVarint((field << 3) | 2), encodeVarint(length)]);
}

/** Builds a message field by field. */
export class ProtoWriter {
  private readonly parts: Buffer[] = [];

  varint(field: number, value: number | bigint): this {
    this.parts.push(encodeVarint(field << 3), encodeVarint(value));
    return this;
  }

  bytes(field: number, value: Uint8Array): this {
    this.parts.push(
      lengthDelimitedHeader(field, value.byteLength),
      Buffer.from(value.buffer, value.byteOffset, value.byteLength),
    );
    return this;
  }

  string(field: number, value: string): this {
    return this.bytes(field, Buffer.from(value, 'utf8'));
  }

  message(field: number, build: (w: ProtoWriter) => void): this {
    const inner = new ProtoWriter();
    build(inner);
    return this.bytes(field, inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}
