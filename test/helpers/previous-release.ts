import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, symlinkSync } from 'node:fs';
import { join, resolve } from 'node:path';

const repo = resolve(import.meta.dirname, '..', '..');

/** The release before this one (CHANGELOG.md): its tag, and its commit for a clone without tags. */
export const PREVIOUS_RELEASE = { tag: 'v0.2.0', commit: '0540d2a' };

/**
 * The previous release's code, checked out from this repository's history into `dir/<tag>` (`git
 * archive`: no worktree is registered), with this checkout's node_modules linked in: the old code
 * runs on today's dependencies, which is what an upgrade that keeps the image's packages does, and
 * the test says when that stops working. Returns the folder, whose `bin/stemforge.mjs` runs it.
 */
export function checkOutPreviousRelease(dir: string): { root: string; commit: string; sameDependencies: boolean } {
  const commit = resolveCommit();
  const root = join(dir, PREVIOUS_RELEASE.tag);
  if (!existsSync(root)) {
    mkdirSync(root, { recursive: true });
    const archive = execFileSync('git', ['-C', repo, 'archive', '--format=tar', commit], { maxBuffer: 1 << 30 });
    execFileSync('tar', ['-x', '-C', root], { input: archive });
    symlinkSync(join(repo, 'node_modules'), join(root, 'node_modules'), 'dir');
  }
  const lock = (at: string) => readFileSync(join(at, 'package-lock.json'), 'utf8');
  return { root, commit, sameDependencies: lock(root) === lock(repo) };
}

function resolveCommit(): string {
  for (const ref of [`${PREVIOUS_RELEASE.tag}^{commit}`, `${PREVIOUS_RELEASE.commit}^{commit}`]) {
    try {
      return execFileSync('git', ['-C', repo, 'rev-parse', '--verify', '--quiet', ref], { encoding: 'utf8' }).trim();
    } catch {
      // not in this clone: try the next
    }
  }
  throw new Error(
    `the previous release (${PREVIOUS_RELEASE.tag}, ${PREVIOUS_RELEASE.commit}) is not in this clone's history: fetch it (git fetch --tags, or a full clone)`,
  );
}
