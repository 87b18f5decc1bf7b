import { assertHitArgs, DEFAULT_WINDOW_MS, resultFor, type RateLimiter, type RateLimitResult } from './rate-limiter.ts';

export interface MemoryRateLimiterOptions {
  now?: () => number;
  /** How often, at most, a hit sweeps expired windows out of the map. */
  sweepIntervalMs?: number;
  /** A hard cap on live keys; past it the oldest windows are dropped (their keys start afresh). */
  maxKeys?: number;
}

interface Window {
  count: number;
  resetAtMs: number;
}

/**
 * Fixed-window counters in a Map, for a single API process. Expired windows are swept on the way
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
    let w = this.#windows.get(key);
    if (!w || w.resetAtMs <= now) {
      // Re-inserting keeps Map order = window start order, which the cap relies on.
      this.#windows.delete(key);
      w = { count: 0, resetAtMs: now + windowMs };
      this.#windows.set(key, w);
    }
    w.count++;
    return resultFor(w.count, limit, w.resetAtMs, now);
  }

  async close(): Promise<void> {
    this.#windows.clear();
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
