import { randomBytes } from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** Random base62 text from a CSPRNG, without modulo bias (rejection sampling). */
export function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

let lastMs = 0;
let sequence = 0;

/**
 * A new identifier: `<prefix>_` + a millisecond timestamp (base36, fixed width) + a per-process
 * sequence within that millisecond + 12 random base62 characters, so ids sort by creation order.
 */
export function newId(prefix: string): string {
  const now = Date.now();
  sequence = now === lastMs ? sequence + 1 : 0;
  lastMs = now;
  return `${prefix}_${now.toString(36).padStart(9, '0')}${sequence.toString(36).padStart(3, '0')}${randomBase62(12)}`;
}

/** A new webhook secret: 32 random bytes (256 bits, the HMAC-SHA256 key size), base64url, prefixed. */
export function generateWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}
