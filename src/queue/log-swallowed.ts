import type { Logger } from 'pino';
import { isDependencyUnavailable, type Dependency } from '../domain/dependency-error.ts';

/** Connection strings with a password (`scheme://user:secret@host`) as they may appear in driver messages. */
const CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/**
 * An error reduced to what is safe to log: its message with any credentials in a URL removed, and
 * its code; a dependency being away also names it (`dependency`, `reason`), which lets the runtime's
 * logger count the line as that outage's (`src/dependencies/monitor.ts`) instead of printing it.
 */
export function safeError(err: unknown): { message: string; code?: string; dependency?: Dependency; reason?: string } {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const message = String(e?.message ?? err).replace(CREDENTIALS, '$1***@');
  const code = typeof e?.code === 'string' ? { code: e.code } : {};
  if (isDependencyUnavailable(err)) return { message, ...code, dependency: err.dependency, reason: err.reason };
  return { message, ...code };
}

/**
 * A logger for errors an adapter survives (the database or Redis briefly away: the next poll or
 * reconnect recovers). The same message is logged at most once a minute, since ioredis reports
 * every reconnect attempt and a poller every tick.
 */
export function swallowedErrorLog(
  log: Logger,
  component: string,
  quietMs = 60_000,
): (err: unknown, what: string) => void {
  const last = new Map<string, number>();
  return (err, what) => {
    const error = safeError(err);
    const key = `${what}\u0000${error.message}`;
    const now = Date.now();
    if (now - (last.get(key) ?? -Infinity) < quietMs) return;
    last.set(key, now);
    if (last.size > 100) last.clear();
    log.warn({ component, error }, what);
  };
}
