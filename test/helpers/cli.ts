import { execFile } from 'node:child_process';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '../..');

/** Runs `stemforge <args>` in a child process as an operator would; never rejects. */
export function stemforge(
  args: string[],
  env: Record<string, string>,
): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    execFile(
      process.execPath,
      [join(repo, 'bin/stemforge.mjs'), ...args],
      { cwd: repo, env: { ...process.env, ...env, LOG_LEVEL: 'silent' } },
      (err, stdout, stderr) => done({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}
