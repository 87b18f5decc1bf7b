import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { WorkerDeps } from './deps.ts';
import type { JobRow } from '../store/jobs.ts';
import { claimJob, renewLease, reportProgress, setCreditsCharged, transitionHeldJob } from '../store/jobs.ts';
import { chargeHold, heldForJob, releaseHold, type Settlement } from '../store/credits.ts';
import { retryDelayMs } from '../domain/job-state.ts';
import { recordJobEvent } from '../jobs/events/outbox.ts';
import { kindSpec, type JobKind, type Stage, type StageType } from '../domain/job-kinds.ts';
import { readJob } from '../jobs/read-job.ts';
import type { StageCompleted, StageHandler, StageHandlers } from './stage.ts';
import { errorCodeOf, JobTimeoutError, PermanentJobError, readableError, ShutdownError } from './job-errors.ts';
import type { ProgressPhase } from '../domain/vocabulary.ts';
import { PROCESS_ID } from '../domain/process-id.ts';
import { JOB_LEASE_MS, JOB_LEASE_RENEW_MS } from '../domain/job-lease.ts';
import { JOB_CRASHED_CODE } from '../domain/vocabulary.ts';
import { CHECKPOINTS_DIR, checkpointDirName, workDirName } from './work-dir.ts';
import { raiseWorkKept } from '../store/kept-work.ts';
import { holdPath } from '../storage/held-paths.ts';
import { storedTierLabel } from '../metrics/labels.ts';
import { settleMeasuredInput } from './settle-measured.ts';
import { discardIfAbandoned, guardedStoreFile } from './guarded-output.ts';

export interface Runner {
  services: WorkerDeps;
  handlers: StageHandlers;
  /** Aborted when the process shuts down. */
  shutdown: AbortSignal;
  log?: (msg: string, extra?: Record<string, unknown>) => void;
}

/** The owner of this process's job leases. */
export const workerId = PROCESS_ID;

/** How a stage attempt ended, the `outcome` label of its duration. */
type AttemptOutcome = 'completed' | 'next_stage' | 'retried' | 'failed' | 'handed_back' | 'taken_over';

/**
 * Runs one stage of one job: claims the row (atomic, so a duplicate message is harmless), keeps
 * the lease alive, calls the stage handler, then commits the outcome in one transaction: the job's
 * new state, its credit movement and its webhook event together.
 */
export async function runJobStage(runner: Runner, jobId: string, stage: Stage): Promise<void> {
  const { services: deps } = runner;
  const job = await claimJob(deps.db, jobId, workerId, JOB_LEASE_MS);
  if (!job) return;
  const checkpointDir = join(deps.config.dataDir, CHECKPOINTS_DIR, checkpointDirName(job.id, stage));
  if (job.stalled_crashes >= deps.config.workers.maxCrashes) {
    // A poison input that kills its worker at the same place would otherwise be run without end.
    const message = `the service stopped ${job.stalled_crashes} times at the same place while running this job; it is not run again`;
    await failJob(deps, job, message, JOB_CRASHED_CODE);
    await rm(checkpointDir, { recursive: true, force: true }).catch(() => undefined);
    runner.log?.('job failed after repeated crashes', { jobId: job.id, crashes: job.stalled_crashes });
    return;
  }
  const labels = { kind: job.kind, stage };
  const startedAt = performance.now();
  deps.metrics.queueWait.observe(labels, Math.max(0, (Date.now() - Date.parse(job.next_attempt_at)) / 1000));
  deps.metrics.stagesRunning.inc(labels);
  let outcome: AttemptOutcome = 'failed';
  // Keyed by the exact `${kind}:${stage}`, so the handler found fits the job's kind; TypeScript does
  // not follow that across the union of kinds.
  const handler = runner.handlers[`${job.kind}:${stage}` as StageType] as StageHandler<JobKind> | undefined;
  const controller = new AbortController();
  const onShutdown = () => controller.abort(new ShutdownError('worker shutting down'));
  runner.shutdown.addEventListener('abort', onShutdown);
  const timeout = setTimeout(
    () => controller.abort(new JobTimeoutError('the job took too long and was stopped')),
    kindSpec(job.kind).timeoutMs,
  );
  const heartbeat = setInterval(() => {
    renewLease(deps.db, job.id, workerId, JOB_LEASE_MS).then(
      (held) => held || controller.abort(new ShutdownError('lease lost')),
      () => undefined,
    );
  }, JOB_LEASE_RENEW_MS);
  let lastProgress = job.progress;
  let lastPhase: ProgressPhase | null = job.progress_phase;
  const progress = (p: number, phase: ProgressPhase = lastPhase ?? 'queued') => {
    const value = Math.max(lastProgress, Math.min(99, Math.floor(p)));
    if (phase === lastPhase && value <= lastProgress) return;
    lastProgress = value;
    lastPhase = phase;
    reportProgress(deps.db, job.id, value, phase).then(
      // Cancelled meanwhile (src/jobs/actions/cancel-job.ts): stop now rather than at the next heartbeat.
      (running) => running || controller.abort(new ShutdownError('the job was cancelled')),
      (err: Error) => deps.log.warn({ jobId: job.id, err: err.message }, 'could not record progress'),
    );
  };
  let kept = job.work_kept;
  const keepWork = (units: number) => {
    if (units <= kept) return;
    kept = units;
    raiseWorkKept(deps.db, job.id, workerId, units).catch((err: Error) =>
      deps.log.warn({ jobId: job.id, err: err.message }, 'could not record the work kept'),
    );
  };
  const workDir = join(deps.config.dataDir, 'work', workDirName(job, stage));
  const releaseWorkDir = holdPath(workDir);
  try {
    if (!handler) throw new PermanentJobError(`no handler for ${job.kind} jobs at stage ${stage}`);
    await mkdir(workDir, { recursive: true });
    const typed = readJob(job);
    const settle = (seconds: number, bytes: number) =>
      settleMeasuredInput(deps, job, typed.input, workerId, { durationSeconds: seconds, fileSizeBytes: bytes });
    const result = await handler(deps, {
      job: typed,
      workDir,
      signal: controller.signal,
      progress,
      keepWork,
      checkpointDir,
      settleMeasuredInput: settle,
      storeFile: guardedStoreFile(deps, job, workerId, JOB_LEASE_MS),
    });
    if (result.type === 'next-stage') {
      await transitionHeldJob(deps.db, job.id, workerId, {
        source_key: result.source.key,
        duration_seconds: result.source.durationSeconds,
        credits_required: result.source.credits,
        input_json: JSON.stringify(result.input),
        status: 'PENDING',
        progress_phase: 'queued',
        next_attempt_at: new Date().toISOString(),
        // A finished stage is progress: the next one counts its own work and deaths.
        work_kept: 0,
        kept_at_crash: null,
        stalled_crashes: 0,
      });
      await deps.queue.enqueue(job, result.nextStage);
      outcome = 'next_stage';
    } else {
      outcome = (await completeJob(deps, job, result)) ? 'completed' : 'taken_over';
    }
  } catch (err) {
    const reason = controller.signal.aborted ? controller.signal.reason : err;
    if (reason instanceof ShutdownError) {
      // Hand the attempt back untouched and announce it again, so another worker takes it now
      // rather than at the next re-offer (or the next start, embedded).
      const handedBack = await transitionHeldJob(deps.db, job.id, workerId, {
        status: 'PENDING',
        progress_phase: 'queued',
        attempts: Math.max(0, job.attempts - 1),
        next_attempt_at: new Date().toISOString(),
      }).catch(() => false);
      if (handedBack) await deps.queue.enqueue(job, stage).catch(() => undefined);
      outcome = 'handed_back';
    } else {
      outcome = await failOrRetry(runner, job, stage, reason);
    }
  } finally {
    // Lost to a cancel or a delete: what this attempt stored goes with the job.
    if (outcome === 'handed_back' || outcome === 'taken_over') {
      await discardIfAbandoned(deps, job).catch((err: Error) =>
        deps.log.warn({ jobId: job.id, err: err.message }, 'could not remove the files of a cancelled job'),
      );
    }
    deps.metrics.stagesRunning.dec(labels);
    deps.metrics.stageDuration.observe({ ...labels, outcome }, (performance.now() - startedAt) / 1000);
    clearTimeout(timeout);
    clearInterval(heartbeat);
    runner.shutdown.removeEventListener('abort', onShutdown);
    await rm(workDir, { recursive: true, force: true }).catch(() => undefined);
    // Kept for the next attempt or run (a retry, a handed-back or taken-over job) until the stage ends.
    if (outcome === 'completed' || outcome === 'failed' || outcome === 'next_stage') {
      await rm(checkpointDir, { recursive: true, force: true }).catch(() => undefined);
    }
    releaseWorkDir();
  }
}

/** Settles a completed job; false when another worker had taken it over (it settles the job). */
async function completeJob(
  deps: Pick<WorkerDeps, 'config' | 'db' | 'metrics' | 'blobs'>,
  job: JobRow,
  outcome: StageCompleted,
): Promise<boolean> {
  const now = new Date();
  const settled = await deps.db.transaction().execute(async (tx) => {
    const moved = await transitionHeldJob(tx, job.id, workerId, {
      status: 'COMPLETED',
      progress: 100,
      progress_phase: 'completed',
      outputs_json: JSON.stringify(outcome.outputs),
      audio_metadata_json: outcome.audioMetadata ? JSON.stringify(outcome.audioMetadata) : null,
      completed_at: now.toISOString(),
      expires_at: new Date(now.getTime() + deps.config.retentionSeconds * 1000).toISOString(),
      error_message: null,
    });
    if (!moved) return null; // another worker took over: it settles the job, not us
    // Every job created while metering is on holds at least 1 credit. One that holds nothing was
    // created while METERING=off and costs nothing, whatever the setting is now; one that holds
    // credit while metering is off now gets it back.
    const held = await heldForJob(tx, job.id);
    let settlement: Settlement = { charged: 0, released: 0, uncovered: 0 };
    if (held > 0 && deps.config.metering) {
      settlement = await chargeHold(tx, job.account_id, job.id, outcome.chargeSeconds);
    } else if (held > 0) {
      settlement = { ...settlement, released: await releaseHold(tx, job.account_id, job.id, 'metering is off') };
    }
    await setCreditsCharged(tx, job.id, settlement.charged);
    await recordJobEvent(tx, deps.blobs, job.id, 'job.completed');
    return settlement;
  });
  if (!settled) return false;
  const tier = storedTierLabel(job.options_json);
  deps.metrics.jobsCompleted.inc({ kind: job.kind, tier });
  deps.metrics.jobDuration.observe({ kind: job.kind, tier, status: 'COMPLETED' }, secondsSince(job.created_at, now));
  deps.metrics.creditsCharged.inc(settled.charged);
  if (settled.released > 0) deps.metrics.creditsReleased.inc({ reason: 'unused' }, settled.released);
  return true;
}

function secondsSince(iso: string, now: Date): number {
  const then = Date.parse(iso);
  return Number.isFinite(then) ? Math.max(0, (now.getTime() - then) / 1000) : 0;
}

async function failOrRetry(runner: Runner, job: JobRow, stage: Stage, err: unknown): Promise<'retried' | 'failed'> {
  const { services: deps } = runner;
  const message = readableError(err);
  const permanent = err instanceof PermanentJobError;
  const attempts = deps.config.workers.maxAttempts ?? kindSpec(job.kind).attempts;
  if (!permanent && job.attempts < attempts) {
    const delay = retryDelayMs(job.attempts, deps.config.workers.retryBaseMs);
    runner.log?.('job attempt failed; retrying', { jobId: job.id, attempt: job.attempts, delay, error: message });
    await transitionHeldJob(deps.db, job.id, workerId, {
      status: 'PENDING',
      progress_phase: 'queued',
      error_message: null,
      next_attempt_at: new Date(Date.now() + delay).toISOString(),
    });
    await deps.queue.enqueue(job, stage, delay);
    deps.metrics.jobAttemptsRetried.inc({ kind: job.kind, stage });
    return 'retried';
  }
  await failJob(deps, job, message, errorCodeOf(err));
  runner.log?.('job failed', { jobId: job.id, attempts: job.attempts, error: message });
  return 'failed';
}

/** The terminal failure: FAILED, the hold released and `job.failed` in the outbox, in one transaction. */
async function failJob(
  deps: Pick<WorkerDeps, 'config' | 'db' | 'metrics' | 'blobs'>,
  job: JobRow,
  message: string,
  code: string,
): Promise<void> {
  const now = new Date();
  const released = await deps.db.transaction().execute(async (tx) => {
    const moved = await transitionHeldJob(tx, job.id, workerId, {
      status: 'FAILED',
      progress_phase: 'failed',
      error_message: message,
      error_code: code,
      completed_at: now.toISOString(),
      expires_at: new Date(now.getTime() + deps.config.retentionSeconds * 1000).toISOString(),
      credits_charged: 0,
    });
    if (!moved) return null;
    const seconds = await releaseHold(tx, job.account_id, job.id, 'job failed');
    await recordJobEvent(tx, deps.blobs, job.id, 'job.failed');
    return seconds;
  });
  if (released !== null) {
    const tier = storedTierLabel(job.options_json);
    deps.metrics.jobsFailed.inc({ kind: job.kind, tier });
    deps.metrics.jobDuration.observe({ kind: job.kind, tier, status: 'FAILED' }, secondsSince(job.created_at, now));
    deps.metrics.creditsReleased.inc({ reason: 'failed' }, released);
  }
}
