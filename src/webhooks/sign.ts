import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Webhook signatures per the contract: `X-Webhook-Signature: sha256=<hex>`, the HMAC-SHA256
 * (RFC 2104) of the exact raw request body with the webhook's secret. Signing the raw bytes, not a
 * re-serialised object, is what lets a receiver verify before parsing.
 */

const PREFIX = 'sha256=';

export function signBody(rawBody: string | Buffer, secret: string): string {
  return PREFIX + createHmac('sha256', secret).update(rawBody).digest('hex');
}

/**
 * Verifies a received signature header in constant time. Lengths are compared first on fixed-size
 * digests (timingSafeEqual throws on unequal lengths), so a wrong-length header costs the same as
 * a wrong one and leaks nothing about the expected value.
 */
export function verifySignature(
  rawBody: string | Buffer,
  secret: string,
  header: string | string[] | undefined | null,
): boolean {
  const received = Array.isArray(header) ? header[0] : header;
  if (typeof received !== 'string' || !received.startsWith(PREFIX)) return false;
  const hex = received.slice(PREFIX.length);
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}
