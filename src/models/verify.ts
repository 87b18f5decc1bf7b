import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { readFile, stat, writeFile, rename, mkdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';

/** A file's content does not match its pinned checksum. */
export class ChecksumError extends Error {}

export async function sha256File(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

type Cache = Record<string, { size: number; mtimeMs: number; sha256: string }>;

/** Name of the record of verified checksums inside the cache directory. */
export const VERIFIED_CACHE_FILE = '.verified.json';

/**
 * Checks a file against its sha256, hashing it only when its size or modification time changed
 * since the last successful check: hashing the 174 MB HTDemucs file costs about half a second,
 * which every worker start would otherwise pay. The record lives in `cacheDir` (Config.cacheDir,
 * never the models directory, which may be read-only); when it cannot be written the check still
 * happens, just uncached.
 */
export async function verifyFileCached(path: string, expected: string, cacheDir: string | undefined): Promise<void> {
  const abs = resolve(path);
  const st = await stat(abs);
  const cache = cacheDir ? await readCache(cacheDir) : {};
  const hit = cache[abs];
  if (hit && hit.size === st.size && hit.mtimeMs === st.mtimeMs && hit.sha256 === expected) return;
  const actual = await sha256File(abs);
  if (actual !== expected) throw new ChecksumError(`${abs}: sha256 ${actual}, expected ${expected}`);
  if (cacheDir) await writeCache(cacheDir, { ...cache, [abs]: { size: st.size, mtimeMs: st.mtimeMs, sha256: actual } });
}

/**
 * Hashes a file this process has just written and records it as verified, so that its first use
 * (verifyFileCached) does not hash it again (the prepared model copies: 300 MB for FAST's two
 * parts and whole copy). Returns the sha256.
 */
export async function hashAndRemember(path: string, cacheDir: string): Promise<string> {
  const abs = resolve(path);
  const st = await stat(abs);
  const sha256 = await sha256File(abs);
  await writeCache(cacheDir, { ...(await readCache(cacheDir)), [abs]: { size: st.size, mtimeMs: st.mtimeMs, sha256 } });
  return sha256;
}

async function readCache(cacheDir: string): Promise<Cache> {
  try {
    return JSON.parse(await readFile(join(cacheDir, VERIFIED_CACHE_FILE), 'utf8')) as Cache;
  } catch {
    return {};
  }
}

async function writeCache(cacheDir: string, cache: Cache): Promise<void> {
  const cachePath = join(cacheDir, VERIFIED_CACHE_FILE);
  try {
    await mkdir(dirname(cachePath), { recursive: true });
    const tmp = `${cachePath}.${process.pid}.tmp`;
    await writeFile(tmp, JSON.stringify(cache, null, 1));
    await rename(tmp, cachePath);
  } catch {
    // An unwritable cache directory only costs the re-hash next time.
  }
}
