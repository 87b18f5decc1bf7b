import { loadConfig } from '../config.ts';
import { createRuntime, type Runtime } from '../runtime.ts';

/** Runs an operator command against the configured database, closing it afterwards. */
export async function withRuntime<T>(fn: (rt: Runtime) => Promise<T>): Promise<T> {
  const rt = await createRuntime(loadConfig());
  try {
    return await fn(rt);
  } finally {
    await rt.close();
  }
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** A fixed-width table for terminal output. */
export function printTable(rows: Array<Record<string, unknown>>): void {
  const [first] = rows;
  if (first === undefined) {
    process.stdout.write('(none)\n');
    return;
  }
  const cols = Object.keys(first);
  const width = cols.map((c) => Math.max(c.length, ...rows.map((r) => String(r[c] ?? '').length)));
  const line = (vals: string[]) =>
    vals
      .map((v, i) => v.padEnd(width[i] ?? 0))
      .join('  ')
      .trimEnd();
  process.stdout.write(`${[line(cols), ...rows.map((r) => line(cols.map((c) => String(r[c] ?? ''))))].join('\n')}\n`);
}
