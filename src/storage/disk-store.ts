import { randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { copyFile, mkdir, open, readdir, readFile, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { dirname, join, relative, sep } from 'node:path';
import type { Readable } from 'node:stream';
import { assertBlobKey, assertBlobPrefix } from './blob-key.ts';
import { STORAGE_BACKENDS, type StorageCapabilities } from './backends.ts';
import {
  assertPutOptions,
  assertSignedDownloadOptions,
  checkRange,
  type BlobStat,
  type BlobStore,
  type PutOptions,
  type SignedDownloadOptions,
  type UnfinishedWrite,
} from './blob-store.ts';
import { holdPath, isPathHeld } from './held-paths.ts';
import { buildDownloadUrl } from './download-url.ts';
import { BlobNotFoundError } from './errors.ts';
import { copyWithLimit } from './limited-copy.ts';
import type { UrlSigner } from './url-signer.ts';

export interface DiskBlobStoreOptions {
  root: string;
  /** Site URL (no `/v1`) that signed download URLs point at; the API serves them (`blob-routes.ts`). */
  publicUrl: string;
  signer: UrlSigner;
  /** Clock for URL expiry; tests move it. */
  now?: () => number;
}

const DEFAULT_TYPE = 'application/octet-stream';

/**
 * Blobs as files under `root`:
 * - `objects/<key>` the bytes,
 * - `meta/<key>.json` the content type (a separate tree, so no key can collide with a sidecar),
 * - `tmp/` partial writes, renamed into place only when complete (rename is atomic within one
 *   file system, so readers see the old blob or the new one, never a partial one).
 * A key that is also a "folder" of another key (`a` and `a/b`) cannot coexist here; the service's
 * key layout never does that.
 */
export class DiskBlobStore implements BlobStore {
  /** Files of this host only; downloads are served by this API (`/v1/blobs/`), so no other origin. */
  readonly capabilities: StorageCapabilities = {
    sharedBetweenProcesses: STORAGE_BACKENDS.disk.sharedBetweenProcesses,
    downloadOrigins: [],
  };
  readonly #objects: string;
  readonly #meta: string;
  readonly #tmp: string;
  readonly #now: () => number;

  constructor(private readonly options: DiskBlobStoreOptions) {
    this.#objects = join(options.root, 'objects');
    this.#meta = join(options.root, 'meta');
    this.#tmp = join(options.root, 'tmp');
    this.#now = options.now ?? Date.now;
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }> {
    assertBlobKey(key);
    assertPutOptions(options);
    const tmp = await this.#tmpPath();
    const release = holdPath(tmp);
    const out = createWriteStream(tmp, { flags: 'wx' });
    try {
      const size = await copyWithLimit(body, out, options.maxBytes);
      if (!out.closed) await new Promise<void>((r) => out.once('close', () => r()));
      await this.#commit(tmp, key, options.contentType);
      return { size };
    } catch (err) {
      out.destroy();
      await rm(tmp, { force: true });
      throw err;
    } finally {
      release();
    }
  }

  async putFile(key: string, localPath: string, options: { contentType: string }): Promise<{ size: number }> {
    assertBlobKey(key);
    assertPutOptions(options);
    const tmp = await this.#tmpPath();
    const release = holdPath(tmp);
    try {
      await copyFile(localPath, tmp);
      const { size } = await stat(tmp);
      await this.#commit(tmp, key, options.contentType);
      return { size };
    } catch (err) {
      await rm(tmp, { force: true });
      throw err;
    } finally {
      release();
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    assertBlobKey(key);
    try {
      const s = await stat(this.#objectPath(key));
      if (!s.isFile()) return null;
      return { size: s.size, contentType: await this.#contentType(key) };
    } catch (err) {
      if (isMissing(err)) return null;
      throw err;
    }
  }

  async createReadStream(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    assertBlobKey(key);
    // Opening first pins the file: a concurrent overwrite (rename) or delete does not affect it.
    const handle = await open(this.#objectPath(key), 'r').catch((err) => {
      throw isMissing(err) ? new BlobNotFoundError(key) : err;
    });
    try {
      const { size } = await handle.stat();
      const { start, end } = checkRange(range, size);
      return handle.createReadStream({ start, end, autoClose: true });
    } catch (err) {
      await handle.close();
      throw err;
    }
  }

  async downloadToFile(key: string, localPath: string): Promise<void> {
    assertBlobKey(key);
    await copyFile(this.#objectPath(key), localPath).catch((err) => {
      throw isMissing(err) ? new BlobNotFoundError(key) : err;
    });
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await rm(this.#objectPath(key), { force: true });
    await rm(this.#metaPath(key), { force: true });
    await this.#prune(dirname(key));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobPrefix(prefix);
    const folder = prefix.slice(0, -1);
    await rm(join(this.#objects, folder), { recursive: true, force: true });
    await rm(join(this.#meta, folder), { recursive: true, force: true });
    await this.#prune(dirname(folder));
  }

  async listFolders(prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const entries = await readdir(join(this.#objects, prefix), { withFileTypes: true }).catch((err) => {
      if (isMissing(err)) return [];
      throw err;
    });
    return entries.filter((e) => e.isDirectory()).map((e) => e.name);
  }

  async signedDownloadUrl(key: string, options: SignedDownloadOptions): Promise<{ url: string; expiresAt: Date }> {
    assertBlobKey(key);
    assertSignedDownloadOptions(options);
    const exp = Math.floor(this.#now() / 1000) + options.expiresInSeconds;
    const url = buildDownloadUrl(this.options.publicUrl, this.options.signer, {
      key,
      exp,
      fileName: options.fileName,
      contentType: options.contentType,
    });
    return { url, expiresAt: new Date(exp * 1000) };
  }

  /**
   * Files in `tmp/` that no write of this process holds: what a killed process left mid-copy (a
   * half-written output, its `.meta` sidecar). This store is never shared between processes.
   */
  async listUnfinishedWrites(): Promise<UnfinishedWrite[]> {
    const names = await readdir(this.#tmp).catch((err) => {
      if (isMissing(err)) return [] as string[];
      throw err;
    });
    const writes: UnfinishedWrite[] = [];
    for (const name of names) {
      const path = join(this.#tmp, name);
      if (isPathHeld(path) || isPathHeld(path.replace(/[.]meta$/, ''))) continue;
      const info = await stat(path).catch(() => null);
      if (info?.isFile()) writes.push({ id: name, key: null, startedAt: info.mtime });
    }
    return writes;
  }

  async abortUnfinishedWrite(write: UnfinishedWrite): Promise<void> {
    if (write.id.includes('/') || write.id.includes('\\') || write.id.startsWith('.')) {
      throw new Error('not a temp file of this store');
    }
    await rm(join(this.#tmp, write.id), { force: true });
  }

  async close(): Promise<void> {}

  #objectPath(key: string): string {
    // The key grammar (no "..", no empty or absolute segments) already rules out escaping `root`;
    // this is a second, independent guard.
    const p = join(this.#objects, key);
    if (relative(this.#objects, p).split(sep).includes('..')) throw new Error('blob path escapes the store root');
    return p;
  }

  #metaPath(key: string): string {
    return join(this.#meta, `${key}.json`);
  }

  async #tmpPath(): Promise<string> {
    await mkdir(this.#tmp, { recursive: true });
    return join(this.#tmp, randomUUID());
  }

  async #contentType(key: string): Promise<string> {
    try {
      const meta = JSON.parse(await readFile(this.#metaPath(key), 'utf8')) as { contentType?: unknown };
      return typeof meta.contentType === 'string' ? meta.contentType : DEFAULT_TYPE;
    } catch (err) {
      if (isMissing(err) || err instanceof SyntaxError) return DEFAULT_TYPE;
      throw err;
    }
  }

  /** Moves a finished temp file into place, metadata first so the new bytes never carry a stale type. */
  async #commit(tmp: string, key: string, contentType: string): Promise<void> {
    const metaTmp = `${tmp}.meta`;
    try {
      await writeFile(metaTmp, JSON.stringify({ contentType }), { flag: 'wx' });
      await renameInto(metaTmp, this.#metaPath(key));
      await renameInto(tmp, this.#objectPath(key));
    } finally {
      await rm(metaTmp, { force: true });
    }
  }

  /** Removes now-empty folders from `folder` up to the tree roots, so deleted uploads leave no husks. */
  async #prune(folder: string): Promise<void> {
    for (let f = folder; f !== '.' && f !== ''; f = dirname(f)) {
      const emptied = await Promise.all([removeIfEmpty(join(this.#objects, f)), removeIfEmpty(join(this.#meta, f))]);
      if (!emptied.some(Boolean)) return;
    }
  }
}

/** Renames into a folder that may not exist yet, or that a concurrent prune just removed. */
async function renameInto(from: string, to: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    await mkdir(dirname(to), { recursive: true });
    try {
      await rename(from, to);
      return;
    } catch (err) {
      if (!isMissing(err) || attempt >= 3) throw err;
    }
  }
}

async function removeIfEmpty(folder: string): Promise<boolean> {
  try {
    await rmdir(folder);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return true;
    if (code === 'ENOTEMPTY' || code === 'EEXIST' || code === 'ENOTDIR') return false;
    throw err;
  }
}

function isMissing(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  return code === 'ENOENT' || code === 'ENOTDIR';
}
