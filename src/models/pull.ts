import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { promisify } from 'node:util';
import { getModelSpec, type ModelSpec } from './registry.ts';
import { PULLED_SUMS_FILE, resolveModel, type ResolvedModel } from './resolve.ts';
import { ChecksumError, sha256File } from './verify.ts';

const run = promisify(execFile);

export interface PullOptions {
  modelsDir: string;
  /** Download address; overrides the registry's (required where the registry has none). */
  url?: string;
  /** Expected sha256 for a single-file model without a pinned checksum (e.g. htdemucs_6s). */
  sha256?: string;
  /** Whole-download timeout in ms (default 10 minutes). */
  timeoutMs?: number;
  /** Path of the system tar (default `tar`). */
  tarPath?: string;
  onProgress?: (receivedBytes: number, totalBytes: number | null) => void;
}

/** The model cannot be pulled as asked (unknown name, no URL, HTTP error, missing member). */
export class PullError extends Error {}

/**
 * Downloads a model into `<modelsDir>/<name>/`: to a temporary file first, checksums verified
 * (every member of an archive), then moved into place, so a failed or corrupted download never
 * leaves a half-installed model. Archives are unpacked with the system `tar`, run without a shell.
 */
export async function pullModel(name: string, o: PullOptions): Promise<ResolvedModel> {
  const spec = getModelSpec(name);
  if (!spec) throw new PullError(`unknown model '${name}'`);
  const url = o.url ?? (spec.source.kind === 'url' ? spec.source.url : undefined);
  if (!url) {
    const existing = resolveModel(name, o);
    if (existing) return existing; // npm-shipped models are installed with the package
    throw new PullError(`model '${name}' has no download address configured: pass --url URL`);
  }
  await mkdir(o.modelsDir, { recursive: true });
  const work = join(o.modelsDir, `.pull-${name}-${randomBytes(6).toString('hex')}`);
  await mkdir(work);
  try {
    const download = join(work, 'download');
    await fetchToFile(url, download, o);
    const staged = join(work, 'staged');
    await mkdir(staged);
    const sums = await stageFiles(spec, download, staged, work, url, o);
    await moveIntoPlace(o.modelsDir, spec.name, staged, sums);
    const resolved = resolveModel(name, o);
    if (!resolved)
      throw new PullError(`model '${name}' was pulled but cannot be found in ${join(o.modelsDir, spec.name)}`);
    return resolved;
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

/** Replaces `<modelsDir>/<name>/` with the staged files, and records their checksums (`SHA256SUMS`). */
async function moveIntoPlace(
  modelsDir: string,
  name: string,
  staged: string,
  sums: Record<string, string>,
): Promise<void> {
  const target = join(modelsDir, name);
  await rm(target, { recursive: true, force: true });
  await mkdir(target, { recursive: true });
  for (const file of Object.keys(sums)) await rename(join(staged, file), join(target, file));
  await writeFile(
    join(target, PULLED_SUMS_FILE),
    Object.entries(sums)
      .map(([file, sum]) => `${sum}  ${file}\n`)
      .join(''),
  );
}

/**
 * Installs a model that is not the registry's: `download.file` fetched from `url` and checked
 * against `download.sha256`, beside the `extra` files written as given (a model card), all moved
 * into `<modelsDir>/<name>/` at once, with their checksums recorded.
 */
export async function pullFiles(
  name: string,
  o: PullOptions & { url: string; download: { file: string; sha256: string }; extra: Record<string, string> },
): Promise<void> {
  await mkdir(o.modelsDir, { recursive: true });
  const work = join(o.modelsDir, `.pull-${name}-${randomBytes(6).toString('hex')}`);
  await mkdir(work);
  try {
    const staged = join(work, 'staged');
    await mkdir(staged);
    const download = join(staged, o.download.file);
    await fetchToFile(o.url, download, o);
    const sums: Record<string, string> = {
      [o.download.file]: await checked(download, o.download.sha256, o.download.file),
    };
    for (const [file, text] of Object.entries(o.extra)) {
      await writeFile(join(staged, file), text);
      sums[file] = await sha256File(join(staged, file));
    }
    await moveIntoPlace(o.modelsDir, name, staged, sums);
  } finally {
    await rm(work, { recursive: true, force: true });
  }
}

async function stageFiles(
  spec: ModelSpec,
  download: string,
  staged: string,
  work: string,
  url: string,
  o: PullOptions,
): Promise<Record<string, string>> {
  const sums: Record<string, string> = {};
  const isArchive =
    (spec.source.kind === 'url' && spec.source.archive === 'tar.gz') || /\.(tar\.gz|tgz)$/.test(new URL(url).pathname);
  if (isArchive) {
    const unpacked = join(work, 'unpacked');
    await mkdir(unpacked);
    const members = spec.files.map((f) => f.member ?? f.name);
    try {
      // Only the named members are extracted: nothing else in the archive reaches the disk.
      await run(o.tarPath ?? 'tar', ['-xzf', download, '-C', unpacked, '--no-same-owner', '--', ...members], {
        timeout: 120_000,
      });
    } catch (err) {
      throw new PullError(
        `cannot unpack ${url}: ${((err as { stderr?: string }).stderr ?? (err as Error).message).trim()}`,
      );
    }
    for (const f of spec.files) {
      const path = join(unpacked, f.member ?? f.name);
      sums[f.name] = await checked(path, f.sha256, f.name);
      await rename(path, join(staged, f.name));
    }
  } else {
    if (spec.files.length !== 1)
      throw new PullError(`model '${spec.name}' has ${spec.files.length} files: its source must be an archive`);
    const [f] = spec.files;
    if (!f) throw new PullError(`model '${spec.name}' lists no files`);
    const expected = f.sha256 ?? o.sha256;
    if (!expected) throw new PullError(`model '${spec.name}' has no pinned checksum: pass --sha256 HEX`);
    sums[f.name] = await checked(download, expected, f.name);
    await rename(download, join(staged, f.name));
  }
  return sums;
}

async function checked(path: string, expected: string | undefined, label: string): Promise<string> {
  const actual = await sha256File(path);
  if (expected && actual !== expected.toLowerCase()) {
    throw new ChecksumError(`checksum mismatch for ${label}: got ${actual}, expected ${expected}`);
  }
  return actual;
}

async function fetchToFile(url: string, path: string, o: PullOptions): Promise<void> {
  let res: Response;
  const signal = AbortSignal.timeout(o.timeoutMs ?? 600_000);
  try {
    res = await fetch(url, { redirect: 'follow', signal });
  } catch (err) {
    throw new PullError(`cannot download ${url}: ${(err as Error).message}`);
  }
  if (!res.ok || !res.body) throw new PullError(`cannot download ${url}: HTTP ${res.status}`);
  const total = Number(res.headers.get('content-length')) || null;
  let received = 0;
  const body = Readable.fromWeb(res.body as import('node:stream/web').ReadableStream<Uint8Array>);
  body.on('data', (chunk: Buffer) => {
    received += chunk.length;
    o.onProgress?.(received, total);
  });
  await pipeline(body, createWriteStream(path), { signal });
  if (total !== null && received !== total)
    throw new PullError(`download of ${url} stopped at ${received} of ${total} bytes`);
}
