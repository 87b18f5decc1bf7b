import type { Logger } from 'pino';
import { DEPENDENCY_LABELS, DependencyUnavailableError, type Dependency } from '../domain/dependency-error.ts';
import { safeError } from '../queue/log-swallowed.ts';
import { networkFailure, withDeadline } from './unavailable.ts';

export interface MonitorOptions {
  /** DEPENDENCY_TIMEOUT_SECONDS: how long a probe may take. */
  timeoutMs: number;
  /** At most one warning per dependency this often. */
  quietMs?: number;
  /** While a dependency is down, it is probed this often, so its return is seen (and logged) without traffic. */
  recheckMs?: number;
  /** A readiness answer is reused this long: probes never multiply with the callers of `/readyz`. */
  cacheMs?: number;
}

export type Readiness = Record<string, { ok: boolean; detail?: string }>;

interface State {
  down: boolean;
  since: number;
  lastWarning: number;
  recheck?: NodeJS.Timeout;
}

/**
 * What this process knows of its dependencies (the database, Redis, S3): the adapters report each
 * failure here, `/readyz` asks it, and it keeps the log readable during an outage: one warning per
 * dependency per minute at most, and one line when the dependency answers again (it is probed every
 * few seconds while down). Recovery itself needs nothing from here: the drivers reconnect.
 */
export class DependencyMonitor {
  readonly #probes = new Map<Dependency, () => Promise<unknown>>();
  readonly #states = new Map<Dependency, State>();
  readonly #quietMs: number;
  readonly #recheckMs: number;
  readonly #cacheMs: number;
  #cached: { at: number; answer: Promise<Readiness> } | undefined;
  #closed = false;

  constructor(
    private readonly log: Logger,
    private readonly options: MonitorOptions,
  ) {
    this.#quietMs = options.quietMs ?? 60_000;
    this.#recheckMs = options.recheckMs ?? 2_000;
    this.#cacheMs = options.cacheMs ?? 2_000;
  }

  /** Probes `dependency` with `probe` for readiness and while it is down. */
  watch(dependency: Dependency, probe: () => Promise<unknown>): void {
    this.#probes.set(dependency, probe);
  }

  /** A function an adapter calls with each connection failure of its dependency. */
  reporter(dependency: Dependency): (err: unknown) => void {
    return (err) => this.failed(dependency, err);
  }

  failed(dependency: Dependency, err: unknown): void {
    const now = Date.now();
    const state = this.#state(dependency);
    if (!state.down) {
      state.down = true;
      state.since = now;
    }
    if (now - state.lastWarning >= this.#quietMs) {
      state.lastWarning = now;
      this.log.warn(
        { component: 'dependencies', dependency, reason: reasonOf(err) },
        `${DEPENDENCY_LABELS[dependency]} is unreachable: what needs it answers 503 until it returns`,
      );
    }
    const probe = this.#probes.get(dependency);
    if (probe && !state.recheck && !this.#closed) {
      state.recheck = setInterval(() => void this.#probe(dependency, probe), this.#recheckMs);
      state.recheck.unref();
    }
  }

  /** Whether `dependency` is known to be down now. */
  isDown(dependency: Dependency): boolean {
    return this.#states.get(dependency)?.down ?? false;
  }

  /** Every watched dependency, probed within the timeout (answers are reused for a moment). */
  check(): Promise<Readiness> {
    const now = Date.now();
    if (!this.#cached || now - this.#cached.at >= this.#cacheMs) {
      const probes = [...this.#probes].map(
        async ([dependency, probe]) => [dependency, await this.#probe(dependency, probe)] as const,
      );
      this.#cached = { at: now, answer: Promise.all(probes).then((entries) => Object.fromEntries(entries)) };
    }
    return this.#cached.answer;
  }

  /**
   * A pino `logMethod` hook: a warning about a failure whose error names a dependency (`safeError`
   * adds `dependency`) counts as that dependency's failure and is not printed on its own, so the
   * background loops that meet an outage (pollers, heartbeats, sweeps) add nothing to its one warning.
   */
  absorbs(line: unknown): boolean {
    const error = (line as { error?: { dependency?: unknown } } | null)?.error;
    const dependency = error?.dependency;
    if (typeof dependency !== 'string' || !(dependency in DEPENDENCY_LABELS)) return false;
    this.failed(dependency as Dependency, error);
    return true;
  }

  close(): void {
    this.#closed = true;
    for (const state of this.#states.values()) clearInterval(state.recheck);
  }

  async #probe(dependency: Dependency, probe: () => Promise<unknown>): Promise<{ ok: boolean; detail?: string }> {
    try {
      await withDeadline(probe(), this.options.timeoutMs, dependency);
    } catch (err) {
      this.failed(dependency, err);
      return { ok: false, detail: (err instanceof DependencyUnavailableError ? err : null)?.message ?? reasonOf(err) };
    }
    this.#recovered(dependency);
    return { ok: true };
  }

  #recovered(dependency: Dependency): void {
    const state = this.#states.get(dependency);
    if (!state?.down) return;
    state.down = false;
    clearInterval(state.recheck);
    state.recheck = undefined;
    state.lastWarning = 0;
    this.log.info(
      { component: 'dependencies', dependency, downSeconds: Math.round((Date.now() - state.since) / 1000) },
      `${DEPENDENCY_LABELS[dependency]} is reachable again`,
    );
  }

  #state(dependency: Dependency): State {
    let state = this.#states.get(dependency);
    if (!state) {
      state = { down: false, since: 0, lastWarning: 0 };
      this.#states.set(dependency, state);
    }
    return state;
  }
}

/** A short cause for the log and `/readyz`: the error's code, or its (credential-free) message. */
function reasonOf(err: unknown): string {
  if (err instanceof DependencyUnavailableError) return err.reason;
  const e = err as { reason?: unknown; message?: unknown } | undefined;
  if (typeof e?.reason === 'string') return e.reason;
  const safe = safeError(err);
  return networkFailure(err) ?? safe.code ?? safe.message;
}
