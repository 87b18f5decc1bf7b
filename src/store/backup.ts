import BetterSqlite3 from 'better-sqlite3';

/**
 * Copies a SQLite database file with SQLite's online backup: a consistent snapshot even while the
 * service writes to it (WAL mode), which copying the file and its -wal beside it is not.
 */
export async function backupSqlite(path: string, destination: string): Promise<void> {
  const source = new BetterSqlite3(path, { readonly: true, fileMustExist: true });
  try {
    await source.backup(destination);
  } finally {
    source.close();
  }
}
