import { describe, expect, test } from 'vitest';
import { lastDays } from '../../src/dashboard/routes/account.ts';
import { clearedSessionCookie, readCookie, sessionCookie } from '../../src/dashboard/cookies.ts';
import { DUMMY_HASH, hashPassword, verifyPassword } from '../../src/accounts/password.ts';
import { toBuckets } from '../../src/jobs/outputs/output-peaks.ts';

describe('dashboard passwords (scrypt)', () => {
  test('a hash verifies its password only; salts differ; malformed or out-of-range hashes never match', async () => {
    const h = await hashPassword('correct horse battery');
    expect(h).toMatch(/^scrypt\$32768\$8\$1\$[\w+/=]{24}\$[\w+/=]{44}$/);
    expect(await verifyPassword('correct horse battery', h)).toBe(true);
    expect(await verifyPassword('correct horse batterY', h)).toBe(false);
    expect(await hashPassword('correct horse battery')).not.toBe(h);
    expect(await verifyPassword('x', 'plain-text')).toBe(false);
    expect(await verifyPassword('x', h.replace('$32768$', '$4294967296$'))).toBe(false);
    for (const guess of ['', 'password', 'correct horse battery'])
      expect(await verifyPassword(guess, DUMMY_HASH)).toBe(false);
  });
});

describe('session cookie', () => {
  test('flags, Secure only over https, and reading it back among other cookies', () => {
    expect(sessionCookie('tok', 60, false)).toBe('sf_session=tok; Path=/; HttpOnly; SameSite=Lax; Max-Age=60');
    expect(sessionCookie('tok', 60, true)).toMatch(/; Secure$/);
    expect(clearedSessionCookie(false)).toContain('Max-Age=0');
    expect(readCookie('a=1; sf_session=abc; b=2', 'sf_session')).toBe('abc');
    expect(readCookie('xsf_session=abc', 'sf_session')).toBeNull();
    expect(readCookie(undefined, 'sf_session')).toBeNull();
  });
});

describe('peak buckets', () => {
  test('each bucket is the max of its span; short inputs repeat; values clamp to 1 and round to 3 decimals', () => {
    const blocks = Array.from({ length: 4000 }, (_, i) => (i === 2001 ? 0.98765 : i < 2000 ? 0.25 : 0));
    const b = toBuckets(blocks, 1000);
    expect(b).toHaveLength(1000);
    expect(b.slice(0, 500).every((v) => v === 0.25)).toBe(true);
    expect(b[500]).toBe(0.988);
    expect(b.slice(501).every((v) => v === 0)).toBe(true);
    expect(toBuckets([0.5, 1.7], 4)).toEqual([0.5, 0.5, 1, 1]);
    expect(toBuckets([], 3)).toEqual([0, 0, 0]);
  });
});

test('usage days: the last 30 UTC dates, oldest first, ending today', () => {
  const days = lastDays(new Date('2026-03-01T23:59:00Z'), 30);
  expect(days).toHaveLength(30);
  expect(days.at(-1)).toBe('2026-03-01');
  expect(days[0]).toBe('2026-01-31');
});
