import type { Logger } from 'pino';

/** Connection strings with a password (`scheme://user:secret@host`) as they may appear in driver messages. */
const CREDENTIALS = /([a-z][a-z0-9+.-]*:\/\/)[^/\s@]*@/gi;

/** An error reduced to what is safe to log: its message with any credentials in a URL removed, and its code. */
export function safeError(err: unknown): { message: string; code?: string } {
  const e = err as { message?: unknown; code?: unknown } | undefined;
  const message = String(e?.message ?? err).replace(CREDENTIALS, '$1***@');
  return typeof e?.code === 'string' ? { message, code: e.code } : { message };
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
