import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * HMAC-SHA256 signatures over a set of named string fields, for URLs this API serves itself
 * (signed blob downloads here; signed upload PUTs in the upload route). Callers put everything that
 * must not be altered into `fields`, including a purpose field such as `method`, so a signature made
 * for one kind of URL never verifies as another.
 *
 * The signed message is the JSON array of `[name, value]` pairs sorted by name: unambiguous whatever
 * the values contain (no delimiter can be smuggled in), and independent of insertion order.
 */
export class UrlSigner {
  readonly #key: Buffer;

  constructor(secret: string | Buffer) {
    const key = typeof secret === 'string' ? Buffer.from(secret, 'utf8') : Buffer.from(secret);
    // RFC 2104 section 3: a key shorter than the hash output (32 bytes) weakens the MAC.
    if (key.length < 32) throw new RangeError('the signing secret must be at least 32 bytes');
    this.#key = key;
  }

  /** Lower-case hex HMAC-SHA256 of the fields. */
  sign(fields: Record<string, string>): string {
    return createHmac('sha256', this.#key).update(canonicalFields(fields)).digest('hex');
  }

  /** True when `signature` is the signature of `fields`; compares in constant time. */
  verify(fields: Record<string, string>, signature: string | undefined | null): boolean {
    if (typeof signature !== 'string' || !/^[0-9a-f]{64}$/i.test(signature)) return false;
    const expected = Buffer.from(this.sign(fields), 'hex');
    return timingSafeEqual(expected, Buffer.from(signature, 'hex'));
  }
}

function canonicalFields(fields: Record<string, string>): string {
  const names = Object.keys(fields).sort();
  return JSON.stringify(
    names.map((name) => {
      const value = fields[name];
      if (typeof value !== 'string') throw new TypeError(`signed field ${name} must be a string`);
      return [name, value];
    }),
  );
}
