import type { Logger } from 'pino';
import { allModelSpecs } from '../models/folder-models.ts';
import { WORKER_HEARTBEAT_MS, WORKER_STALE_MS } from '../models/availability.ts';
import { safeError } from '../queue/log-swallowed.ts';
import type { Db } from '../store/schema.ts';
import { forgetWorker, recordWorkerModels } from '../store/worker-models.ts';

export interface PresenceDeps {
  db: Db;
  workerId: string;
  /** Whether this worker can load a model now (read again at every heartbeat: a `models pull` shows up). */
  hasModel: (name: string) => boolean;
  /** Where its folder models are (Config.modelsDir): they are recorded beside the registry's. */
  modelsDir: string;
  log: Logger;
  heartbeatMs?: number;
}

/**
 * Scale-out: records the models this worker has in `worker_models` at start and at every heartbeat,
 * so API processes accept SIX_STEMS or voice cleaning only when a live worker can run them. The
 * first record is awaited: once a worker says it started, the API knows its models.
 */
export async function startWorkerPresence(deps: PresenceDeps): Promise<{ stop(): Promise<void> }> {
  const record = () => {
    const now = Date.now();
    const models = allModelSpecs(deps.modelsDir)
      .map((m) => m.name)
      .filter((name) => deps.hasModel(name));
    return recordWorkerModels(
      deps.db,
      deps.workerId,
      models,
      new Date(now).toISOString(),
      new Date(now - WORKER_STALE_MS).toISOString(),
    );
  };
  await record();
  // A heartbeat still writing when `stop` runs would put the rows back after they were removed;
  // a beat is skipped while the last one still writes, so no beat outlives the one `stop` waits for.
  let inFlight: Promise<void> | undefined;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = record()
      .catch((err) =>
        deps.log.warn({ error: safeError(err), workerId: deps.workerId }, 'could not record this worker’s models'),
      )
      .finally(() => {
        inFlight = undefined;
      });
  }, deps.heartbeatMs ?? WORKER_HEARTBEAT_MS);
  timer.unref();
  return {
    async stop() {
      clearInterval(timer);
      await inFlight;
      await forgetWorker(deps.db, deps.workerId).catch((err) =>
        deps.log.warn({ error: safeError(err) }, 'could not remove this worker’s model records'),
      );
    },
  };
}
