/**
 * Reads the entries of a ZIP of stored (uncompressed) files from its central directory, written
 * here rather than taken from the library under test, so a wrong archive cannot read back right.
 * (APPNOTE.TXT 4.3: end of central directory record, central directory headers, local headers.)
 */
export function readStoredZip(zip: Buffer): Map<string, Buffer> {
  const eocd = zip.lastIndexOf(Buffer.from([0x50, 0x4b, 0x05, 0x06]));
  if (eocd < 0) throw new Error('no end of central directory record');
  const count = zip.readUInt16LE(eocd + 10);
  let at = zip.readUInt32LE(eocd + 16);
  const entries = new Map<string, Buffer>();
  for (let i = 0; i < count; i++) {
    if (zip.readUInt32LE(at) !== 0x02014b50) throw new Error(`no central directory header at ${at}`);
    const method = zip.readUInt16LE(at + 10);
    const size = zip.readUInt32LE(at + 20);
    const nameLength = zip.readUInt16LE(at + 28);
    const extraLength = zip.readUInt16LE(at + 30);
    const commentLength = zip.readUInt16LE(at + 32);
    const local = zip.readUInt32LE(at + 42);
    const name = zip.subarray(at + 46, at + 46 + nameLength).toString('utf8');
    if (method !== 0) throw new Error(`${name} is compressed (method ${method}), not stored`);
    if (zip.readUInt32LE(local) !== 0x04034b50) throw new Error(`no local header for ${name}`);
    const data = local + 30 + zip.readUInt16LE(local + 26) + zip.readUInt16LE(local + 28);
    entries.set(name, zip.subarray(data, data + size));
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}
