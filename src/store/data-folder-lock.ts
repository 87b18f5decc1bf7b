import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/** The second server on one data folder: it must not start (it would sweep the first's work folders). */
export class DataFolderLockedError extends Error {}

export interface DataFolderLock {
  release(): void;
}

/** Who holds the lock, written beside it for the refusal's message. */
interface Holder {
  pid: number;
  host: string;
  since: string;
}

/**
 * Takes the data folder for this process alone (the embedded server: one per folder). The lock is
 * an exclusive lock on `stemforge.lock`, taken through SQLite (exclusive locking mode, held until the
 * connection closes): an OS file lock, so the kernel frees it when the process dies, however it
 * dies, and a stale lock cannot refuse the next start. Who holds it is written to
 * `stemforge.lock.json` for the message a refused start prints. Throws DataFolderLockedError.
 */
export function lockDataFolder(dataDir: string): DataFolderLock {
  mkdirSync(dataDir, { recursive: true });
  const holderPath = join(dataDir, 'stemforge.lock.json');
  const lock = new BetterSqlite3(join(dataDir, 'stemforge.lock'), { timeout: 0 });
  try {
    lock.pragma('locking_mode = EXCLUSIVE');
    lock.exec('BEGIN EXCLUSIVE; COMMIT');
  } catch (err) {
    lock.close();
    if ((err as { code?: string }).code !== 'SQLITE_BUSY') throw err;
    throw new DataFolderLockedError(
      `the data folder (STEMFORGE_DATA_DIR) is in use by another Stemforge server${describeHolder(holderPath)}: ` +
        'stop it first, or give this one a data folder of its own',
    );
  }
  const holder: Holder = { pid: process.pid, host: hostname(), since: new Date().toISOString() };
  writeFileSync(holderPath, `${JSON.stringify(holder)}\n`);
  return {
    release() {
      rmSync(holderPath, { force: true });
      lock.close();
    },
  };
}

function describeHolder(path: string): string {
  try {
    const h = JSON.parse(readFileSync(path, 'utf8')) as Partial<Holder>;
    return ` (pid ${h.pid} on ${h.host}, since ${h.since})`;
  } catch {
    // Written a moment after the lock is taken: a start racing the holder's may find none yet.
    return '';
  }
}
