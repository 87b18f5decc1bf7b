import { expect } from 'vitest';

/** The contract's error of an answer (`{"error":{"code","message"}}`), checked to have both. */
export async function errorOf(res: Response): Promise<{ code: string; message: string }> {
  const body = (await res.json()) as { error: { code: string; message: string } };
  expect(typeof body.error.code).toBe('string');
  expect(typeof body.error.message).toBe('string');
  return body.error;
}
