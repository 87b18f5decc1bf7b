import { mkdtempSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { stemforge } from './helpers/cli.ts';

/**
 * `stemforge <command> --help` prints the command's usage on stdout and exits 0, for every command
 * `stemforge --help` lists, and starts nothing (a worker, a migration, a server); a command that
 * takes no arguments refuses one.
 */
describe('stemforge <command> --help', () => {
  const data = mkdtempSync(join(tmpdir(), 'stemforge-help-'));
  const env = { STEMFORGE_DATA_DIR: data };
  afterAll(() => rm(data, { recursive: true, force: true }));

  test('every listed command answers --help and -h with its usage, and does nothing else', async () => {
    const top = await stemforge(['--help'], env);
    expect(top.code).toBe(0);
    const names = [...top.stdout.matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!);
    expect(names).toEqual(expect.arrayContaining(['serve', 'worker', 'migrate', 'models', 'denoise', 'separate']));
    const answers = await Promise.all(
      names.flatMap((name) => [stemforge([name, '--help'], env), stemforge([name, '-h'], env)]),
    );
    answers.forEach((r, i) => {
      const name = names[i >> 1];
      expect({ name, code: r.code, stderr: r.stderr }).toEqual({ name, code: 0, stderr: '' });
      expect(r.stdout).toMatch(new RegExp(`^usage: stemforge ${name}\\b`));
      expect(r.stdout).not.toMatch(/started|listening|migrated/);
    });
  });

  test('a command that takes no arguments refuses one; --help after -- is an argument', async () => {
    const worker = await stemforge(['worker', 'extra'], env);
    expect(worker.code).toBe(2);
    expect(worker.stderr).toContain("unexpected argument 'extra'");
    const migrate = await stemforge(['migrate', '--fast'], env);
    expect(migrate.code).toBe(2);
    expect(migrate.stderr).toContain("Unknown option '--fast'");
    const denoise = await stemforge(['denoise', '--', '--help'], env);
    expect(denoise.code).toBe(2);
    expect(denoise.stdout).toBe('');
  });
});
