/**
 * better-sqlite3 (the driver Kysely runs on, its install script off: its package's N-API build)
 * against Node's built-in node:sqlite, the other way to need no compiler at install: one
 * transaction of inserts, then point reads by primary key, the shape of the service's job and
 * ledger traffic. Sides alternate; medians of the rounds. Prints figures, asserts nothing.
 *
 *   node bin/run-ts.mjs bench/sqlite-drivers.ts [--rounds 7] [--rows 20000]
 */
import Database from 'better-sqlite3';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { parseArgs } from 'node:util';
import { median } from '../support/median.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string' }, rows: { type: 'string' } } });
const rounds = Number(values.rounds ?? 7);
const rows = Number(values.rows ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'sf-bench-sqlite-'));

interface Driver {
  exec(sql: string): void;
  insert(id: string, body: string): void;
  read(id: string): unknown;
  close(): void;
}

const SCHEMA =
  'PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL; CREATE TABLE jobs (id TEXT PRIMARY KEY, body TEXT NOT NULL)';

/** What both drivers' connections offer alike: exec, prepared statements, close. */
interface Connection {
  exec(sql: string): unknown;
  prepare(sql: string): { run(...params: string[]): unknown; get(...params: string[]): unknown };
  close(): unknown;
}

/** The bench's operations on an open connection of either driver, its table made. */
function driver(db: Connection): Driver {
  db.exec(SCHEMA);
  const insert = db.prepare('INSERT INTO jobs (id, body) VALUES (?, ?)');
  const read = db.prepare('SELECT body FROM jobs WHERE id = ?');
  return {
    exec: (sql) => void db.exec(sql),
    insert: (id, body) => void insert.run(id, body),
    read: (id) => read.get(id),
    close: () => void db.close(),
  };
}

const body = JSON.stringify({ status: 'COMPLETED', outputs: { vocals: 'x'.repeat(200) } });
const times: Record<string, { insert: number[]; read: number[] }> = {
  'better-sqlite3': { insert: [], read: [] },
  'node:sqlite': { insert: [], read: [] },
};
const open: Record<string, (path: string) => Driver> = {
  'better-sqlite3': (path) => driver(new Database(path)),
  'node:sqlite': (path) => driver(new DatabaseSync(path)),
};
try {
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? ['better-sqlite3', 'node:sqlite'] : ['node:sqlite', 'better-sqlite3'];
    for (const name of order) {
      const db = open[name]!(join(dir, `${name.replace(':', '-')}-${r}.db`));
      let started = performance.now();
      db.exec('BEGIN');
      for (let i = 0; i < rows; i++) db.insert(`job_${i}`, body);
      db.exec('COMMIT');
      times[name]!.insert.push(performance.now() - started);
      started = performance.now();
      for (let i = 0; i < rows; i++) db.read(`job_${(i * 7919) % rows}`);
      times[name]!.read.push(performance.now() - started);
      db.close();
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
const cpu = /Model name:\s*(.*)/.exec(execFileSync('lscpu', { encoding: 'utf8' }))?.[1]?.trim() ?? 'unknown';
console.log(`CPU: ${cpu}; Node ${process.versions.node}; ${rows} rows, ${rounds} rounds, medians`);
for (const [name, t] of Object.entries(times)) {
  const insert = median(t.insert);
  const read = median(t.read);
  console.log(
    `${name.padEnd(15)} insert ${((rows / insert) * 1000).toFixed(0).padStart(8)} rows/s   read ${((rows / read) * 1000).toFixed(0).padStart(8)} rows/s`,
  );
}
