import {
  assertHitArgs,
  assertKey,
  DEFAULT_WINDOW_MS,
  type FailureSeries,
  resultFor,
  type RateLimiter,
  type RateLimitResult,
} from './rate-limiter.ts';

export interface MemoryRateLimiterOptions {
  now?: () => number;
  /** How often, at most, a hit sweeps expired windows out of the map. */
  sweepIntervalMs?: number;
  /** A hard cap on live keys; past it the oldest windows are dropped (their keys start afresh). */
  maxKeys?: number;
}

interface Window {
  count: number;
  /** When the window ends (a failure series: when it is forgotten). */
  resetAtMs: number;
  /** A failure series' last failure. */
  lastAtMs?: number;
}

/**
 * Fixed-window counters and failure series in one Map (keys `h:` and `f:`), for a single API process. Expired windows are swept on the way
 * (no timer, so nothing keeps the process alive), and `maxKeys` bounds memory even under a flood
 * of distinct keys within one window.
 */
export class MemoryRateLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();
  readonly #now: () => number;
  readonly #sweepIntervalMs: number;
  readonly #maxKeys: number;
  #lastSweep: number;

  constructor(options: MemoryRateLimiterOptions = {}) {
    this.#now = options.now ?? Date.now;
    this.#sweepIntervalMs = options.sweepIntervalMs ?? 30_000;
    this.#maxKeys = options.maxKeys ?? 100_000;
    this.#lastSweep = this.#now();
  }

  /** Live windows held; for tests and metrics. */
  get size(): number {
    return this.#windows.size;
  }

  async hit(key: string, limit: number, windowMs = DEFAULT_WINDOW_MS): Promise<RateLimitResult> {
    assertHitArgs(key, limit, windowMs);
    const now = this.#now();
    if (now - this.#lastSweep >= this.#sweepIntervalMs || this.#windows.size >= this.#maxKeys) this.#sweep(now);
    let w = this.#windows.get(`h:${key}`);
    if (!w || w.resetAtMs <= now) {
      // Re-inserting keeps Map order = window start order, which the cap relies on.
      this.#windows.delete(`h:${key}`);
      w = { count: 0, resetAtMs: now + windowMs };
      this.#windows.set(`h:${key}`, w);
    }
    w.count++;
    return resultFor(w.count, limit, w.resetAtMs, now);
  }

  async recordFailure(key: string, forgetMs: number): Promise<number> {
    assertKey(key);
    const now = this.#now();
    const series = this.#live(`f:${key}`, now) ?? { count: 0, resetAtMs: now };
    series.count++;
    series.lastAtMs = now;
    series.resetAtMs = now + forgetMs;
    // Re-inserted at the end: the map stays in order of last change, which the cap relies on.
    this.#windows.delete(`f:${key}`);
    this.#windows.set(`f:${key}`, series);
    return series.count;
  }

  async failures(key: string): Promise<FailureSeries | null> {
    assertKey(key);
    const now = this.#now();
    const series = this.#live(`f:${key}`, now);
    return series ? { count: series.count, msSinceLast: now - (series.lastAtMs ?? now) } : null;
  }

  async clearFailures(key: string): Promise<void> {
    assertKey(key);
    this.#windows.delete(`f:${key}`);
  }

  async close(): Promise<void> {
    this.#windows.clear();
  }

  /** The entry of `key` unless it has run out; sweeps first when due. */
  #live(key: string, now: number): Window | undefined {
    if (now - this.#lastSweep >= this.#sweepIntervalMs || this.#windows.size >= this.#maxKeys) this.#sweep(now);
    const w = this.#windows.get(key);
    return w && w.resetAtMs > now ? w : undefined;
  }

  #sweep(now: number): void {
    this.#lastSweep = now;
    for (const [key, w] of this.#windows) {
      if (w.resetAtMs <= now) this.#windows.delete(key);
    }
    // Still at the cap: every window is live. Drop the oldest tenth, which frees a key's counter
    // early (a lenient failure) rather than letting memory grow without bound.
    if (this.#windows.size >= this.#maxKeys) {
      let drop = Math.max(1, Math.floor(this.#maxKeys / 10));
      for (const key of this.#windows.keys()) {
        if (drop-- <= 0) break;
        this.#windows.delete(key);
      }
    }
  }
}
