/** What the dependency-outage tests share: a call's duration, and waiting for recovery. */

export async function timed<T>(fn: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now();
  const value = await fn();
  return { value, ms: performance.now() - started };
}

/**
 * Polls `check` until it is true; fails after `withinMs` (the bound for recovery once a
 * dependency is back: 20 s). Returns how long it took.
 */
export async function until(what: string, check: () => Promise<boolean>, withinMs = 20_000): Promise<number> {
  const started = performance.now();
  while (performance.now() - started < withinMs) {
    if (await check().catch(() => false)) return performance.now() - started;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: not within ${withinMs} ms`);
}

/** `/readyz` answers 200 again (within 20 s). */
export function untilReady(base: string, withinMs = 20_000): Promise<number> {
  return until('/readyz ready', async () => (await fetch(`${base}/readyz`)).status === 200, withinMs);
}
