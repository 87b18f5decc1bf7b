import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/**
 * Dashboard passwords: scrypt (memory-hard, in node:crypto, so no native add-on) with N=2^15, r=8,
 * p=1: 32 MiB per hash; measured in docs/dashboard.md ("Passwords").
 * Stored as `scrypt$N$r$p$<salt b64>$<hash b64>` so the cost can be raised later without breaking
 * existing hashes. node:crypto's async scrypt runs on the libuv pool, off the event loop.
 */
const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 32;

function derive(password: string, salt: Buffer, n: number, r: number, p: number): Promise<Buffer> {
  // scrypt needs 128 * N * r bytes; Node refuses above maxmem (32 MiB by default), so leave room.
  return new Promise((resolve, reject) => {
    scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N: n, r, p, maxmem: 128 * n * r * 2 }, (err, key) =>
      err ? reject(err) : resolve(key),
    );
  });
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, N, R, P);
  return `scrypt$${N}$${R}$${P}$${salt.toString('base64')}$${key.toString('base64')}`;
}

/** Constant-time comparison of the derived key; a malformed stored hash never matches. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$');
  const [tag, nText, rText, pText, salt, hash] = parts;
  if (parts.length !== 6 || tag !== 'scrypt' || salt === undefined || hash === undefined) return false;
  const [n, r, p] = [Number(nText), Number(rText), Number(pText)];
  // Bounds keep a tampered row from asking for gigabytes.
  if (!(n >= 2 && n <= 2 ** 20 && r >= 1 && r <= 32 && p >= 1 && p <= 16)) return false;
  const expected = Buffer.from(hash, 'base64');
  const key = await derive(password, Buffer.from(salt, 'base64'), n, r, p);
  return key.length === expected.length && timingSafeEqual(key, expected);
}

/**
 * A well-formed hash no password matches (its key is all zeros, a value scrypt does not produce in
 * practice): sign-in verifies against it when the email is unknown, so an unknown email costs the
 * same scrypt work as a wrong password and the answer time does not tell which.
 */
export const DUMMY_HASH = `scrypt$${N}$${R}$${P}$${Buffer.alloc(16).toString('base64')}$${Buffer.alloc(KEY_LENGTH).toString('base64')}`;

/** A password for the first start: 20 base64url characters (120 bits). */
export function generatePassword(): string {
  return randomBytes(15).toString('base64url');
}
