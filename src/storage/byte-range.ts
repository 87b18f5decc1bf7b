/**
 * Parses a `Range` header for a resource of `size` bytes (RFC 9110 section 14.1-14.2), single range
 * only. Returns:
 * - `null` when the header should be ignored and the whole resource sent with 200: absent,
 *   syntactically invalid, not in bytes, or several ranges (a server MAY ignore Range, 14.2);
 * - `'unsatisfiable'` for a valid range that selects nothing (416 with `Content-Range: bytes *\/size`);
 * - the inclusive `{ start, end }` to send with 206 otherwise.
 */
export function parseByteRange(
  header: string | undefined,
  size: number,
): { start: number; end: number } | 'unsatisfiable' | null {
  if (header === undefined) return null;
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header);
  if (!m) return null;
  const [, first, last] = m;
  if (first === '' && last === '') return null;
  if (first === '') {
    // Suffix range `bytes=-n`: the last n bytes; n = 0 selects nothing.
    const n = Number(last);
    if (!Number.isSafeInteger(n)) return null;
    if (n === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - n), end: size - 1 };
  }
  const start = Number(first);
  const end = last === '' ? size - 1 : Number(last);
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end)) return null;
  // last-pos < first-pos makes the range-spec invalid (14.1.1), so the header is ignored.
  if (last !== '' && end < start) return null;
  if (start >= size) return 'unsatisfiable';
  return { start, end: Math.min(end, size - 1) };
}
