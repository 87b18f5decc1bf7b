import type { Db } from '../store/schema.ts';
import { liveWorkerHasModel } from '../store/worker-models.ts';

/** How often a scale-out worker records its models; a worker unseen for `WORKER_STALE_MS` is ignored. */
export const WORKER_HEARTBEAT_MS = 15_000;
export const WORKER_STALE_MS = 60_000;

/**
 * Whether a job that needs an optional model can run in this deployment: asked by the API before
 * it accepts (and charges for) such a job. Adapters: the local disk (embedded: the process that
 * accepts the job runs it) and the live workers' records (scale-out: the API host's disk says
 * nothing about the worker machines).
 */
export interface ModelAvailability {
  has(model: string): Promise<boolean>;
  /** Who lacks the model, for the refusal's message. */
  readonly missingWhere: string;
  /** Where an operator installs it. */
  readonly installWhere: string;
}

/** Embedded: the models this process itself has. */
export function localModels(hasModel: (model: string) => boolean): ModelAvailability {
  return {
    has: async (model) => hasModel(model),
    missingWhere: 'is not installed on this server',
    installWhere: '',
  };
}

/** Scale-out: the models some worker seen in the last `staleMs` recorded (`worker_models`). */
export function workerModels(db: Db, staleMs = WORKER_STALE_MS): ModelAvailability {
  return {
    has: (model) => liveWorkerHasModel(db, model, new Date(Date.now() - staleMs).toISOString()),
    missingWhere: 'is not installed on any running worker',
    installWhere: ' on the worker machines',
  };
}
