import type { Logger } from 'pino';
import { safeError } from '../queue/log-swallowed.ts';

/**
 * SIGTERM and SIGINT stop the process: `stop` runs once (it hands running jobs back, then closes
 * what is open) and the process exits when it ends, or after `graceMs` (SHUTDOWN_GRACE_SECONDS)
 * whatever it still waits for: a dependency that is away never keeps a process from stopping. A
 * second signal exits at once.
 */
export function exitOnStopSignals(log: Logger, graceMs: number, stop: () => Promise<void>): void {
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      log.warn({ signal }, 'second stop signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    log.info({ signal, graceSeconds: graceMs / 1000 }, 'shutting down');
    const force = setTimeout(() => {
      log.error({ graceSeconds: graceMs / 1000 }, 'not stopped within SHUTDOWN_GRACE_SECONDS; exiting anyway');
      process.exit(1);
    }, graceMs);
    force.unref();
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        log.error({ error: safeError(err) }, 'shutdown failed');
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
}

/** Closes what a failed start had opened, waiting at most `ms`: the start's error is what matters. */
export async function closeAfterFailedStart(ms: number, ...closers: Array<(() => Promise<unknown>) | undefined>) {
  const closing = (async () => {
    for (const close of closers) await close?.().catch(() => undefined);
  })();
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([closing, new Promise((r) => (timer = setTimeout(r, ms)))]);
  clearTimeout(timer);
}
