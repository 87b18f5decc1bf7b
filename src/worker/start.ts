import type { WorkerDeps } from './deps.ts';
import { kindsInStage, STAGES, type Stage } from '../domain/job-kinds.ts';
import { listRunnableJobs, releaseOrphanedLeases } from '../store/jobs.ts';
import { runJobStage, workerId } from './run-job.ts';
import { startWorkerPresence } from './presence.ts';
import { assertStageHandlers, STAGE_HANDLERS } from './stage-handlers.ts';
import { startRetentionSweeper } from './retention.ts';
import { startWebhookDispatcher } from '../webhooks/dispatcher.ts';
import { safeError } from '../queue/log-swallowed.ts';
import { assertExecutionProviderUsable } from '../separation/execution-provider.ts';
import { MODEL_REGISTRY } from '../models/registry.ts';
import { registerWorkerGauges } from '../metrics/queue-gauges.ts';

export interface Workers {
  stop(): Promise<void>;
}

/**
 * Starts the workers of this process: one pool per stage with its own concurrency (inference and
 * downloads never wait on each other), plus the retention sweeper. Fails at start-up when a job kind
 * in the catalog has no handler.
 */
export async function startWorkers(deps: WorkerDeps): Promise<Workers> {
  assertStageHandlers(STAGE_HANDLERS);
  // A GPU worker without its CUDA libraries, or without a usable WebGPU adapter, stops here with one
  // line saying what is missing, not at its first job, and never runs on the CPU instead.
  const provider = deps.config.onnx.executionProvider;
  await assertExecutionProviderUsable(provider);
  // What this worker runs where, as the model registry says (on WebGPU, voice cleaning stays on the CPU).
  const models = Object.fromEntries(MODEL_REGISTRY.map((m) => [m.name, m.executionProviders[provider] ?? 'not run']));
  deps.log.info({ executionProvider: provider, models }, `workers run models on ${provider}`);
  const shutdown = new AbortController();
  const runner = {
    services: deps,
    handlers: STAGE_HANDLERS,
    shutdown: shutdown.signal,
    log: (msg: string, extra?: Record<string, unknown>) => deps.log.info(extra ?? {}, msg),
  };
  // Embedded: this is the one process running jobs on its database, so a PROCESSING job can only be
  // a previous run's and is claimable at once. Scale-out: it may be another live worker's; leases
  // left by a dead worker run out by themselves (30 s).
  const scaleOut = deps.config.deployment.mode === 'scale-out';
  if (!scaleOut) await releaseOrphanedLeases(deps.db);

  const concurrency: Record<Stage, number> = {
    inference: deps.config.workers.concurrency,
    download: deps.config.workers.downloadConcurrency,
  };
  const stages: Stage[] = STAGES.filter((s) => kindsInStage(s).length > 0);
  registerWorkerGauges(deps.metrics, { concurrency, hasModel: (name) => deps.engines().hasModel(name) });
  for (const stage of stages) {
    deps.queue.consume(stage, concurrency[stage], (jobId) => runJobStage(runner, jobId, stage));
  }
  // Scale-out: a message can be lost if a process dies between its commit and its enqueue; re-offer
  // runnable jobs now and then (the claim makes duplicates harmless). The database queue polls anyway.
  const reoffer = scaleOut
    ? setInterval(() => {
        for (const stage of stages) {
          listRunnableJobs(deps.db, kindsInStage(stage), stage, 50)
            .then((jobs) => Promise.all(jobs.map((job) => deps.queue.enqueue(job, stage))))
            .catch((err) => deps.log.warn({ error: safeError(err), stage }, 'could not re-offer runnable jobs'));
        }
      }, 30_000)
    : undefined;
  reoffer?.unref();
  const presence = scaleOut
    ? await startWorkerPresence({
        db: deps.db,
        workerId,
        hasModel: (name) => deps.engines().hasModel(name),
        modelsDir: deps.config.modelsDir,
        log: deps.log,
      })
    : undefined;
  const sweeper = startRetentionSweeper(deps);
  // Webhook deliveries have their own poller: a slow receiver never holds a job worker.
  const webhooks = startWebhookDispatcher(deps);
  return {
    async stop() {
      clearInterval(reoffer);
      await presence?.stop();
      sweeper.stop();
      shutdown.abort();
      // A separation is cancelled between segments, and one segment can outlast the grace period:
      // its process is ended now instead. The job is handed back and run again elsewhere anyway.
      await deps.engines().close();
      await webhooks.stop();
      await deps.queue.close();
    },
  };
}
