import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './ids.ts';

/** API keys: `sk_live_` + 40 base62 characters (about 238 bits from a CSPRNG). */
export const API_KEY_PREFIX = 'sk_live_';
const KEY_PATTERN = /^sk_live_[0-9A-Za-z]{32,128}$/;
/** Characters of a key kept in clear for display and lookup: the prefix plus 4 random ones. */
export const DISPLAY_PREFIX_LENGTH = API_KEY_PREFIX.length + 4;

export function generateApiKey(): string {
  return API_KEY_PREFIX + randomBase62(40);
}

export function isWellFormedApiKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}

/** SHA-256 hex of the key: keys are long random strings, so a fast hash is sufficient (no dictionary to attack). */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const x = Buffer.from(a, 'hex');
  const y = Buffer.from(b, 'hex');
  return x.length === y.length && timingSafeEqual(x, y);
}
