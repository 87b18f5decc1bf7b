import { resolve } from 'node:path';
import { existsSync } from 'node:fs';

/**
 * The shared material folder (`../shared` beside the repository; `.ci/run` sets STEMFORGE_SHARED).
 * Tests and benchmarks read audio and models from here, never from the repository.
 */
export const sharedDir = resolve(process.env.STEMFORGE_SHARED ?? resolve(import.meta.dirname, '../../shared'));

export function sharedPath(...parts: string[]): string {
  const p = resolve(sharedDir, ...parts);
  if (!existsSync(p)) throw new Error(`shared material missing: ${p} (set STEMFORGE_SHARED)`);
  return p;
}
