import type { Runtime } from '../runtime.ts';

export interface Workers {
  stop(): Promise<void>;
}

/** Starts the job workers for this process. Job kinds register here as they land. */
export async function startWorkers(_rt: Runtime): Promise<Workers> {
  return { stop: async () => undefined };
}
