import type { WorkerDeps } from './deps.ts';
import { isSourceInUse, listExpiredJobs, markExpired } from '../store/jobs.ts';
import { deleteUpload, listExpiredUploads } from '../store/uploads.ts';
import { uploadPrefix } from '../uploads/grant.ts';
import { deleteJobFiles } from '../jobs/outputs/job-files.ts';

/**
 * Retention: when a job's `expiresAt` passes, its outputs are deleted, the job becomes EXPIRED and
 * its `outputs` null. Uploaded inputs are deleted once they are older than the retention period
 * and no unfinished job still needs them.
 */
export async function sweepExpired(
  deps: Pick<WorkerDeps, 'config' | 'db' | 'blobs'>,
  now = new Date(),
): Promise<{ jobs: number; uploads: number }> {
  const nowIso = now.toISOString();
  let jobs = 0;
  for (const job of await listExpiredJobs(deps.db, nowIso)) {
    await deleteJobFiles(deps.blobs, job);
    if (await markExpired(deps.db, job.id)) jobs++;
  }
  const cutoff = new Date(now.getTime() - deps.config.retentionSeconds * 1000).toISOString();
  let uploads = 0;
  for (const upload of await listExpiredUploads(deps.db, cutoff)) {
    if (await isSourceInUse(deps.db, upload.storage_key)) continue;
    // The whole prefix: the published file and any object a PUT cut off by a crash left beside it.
    await deps.blobs.deletePrefix(uploadPrefix(upload));
    await deleteUpload(deps.db, upload.id);
    uploads++;
  }
  return { jobs, uploads };
}

export function startRetentionSweeper(
  deps: Pick<WorkerDeps, 'config' | 'db' | 'blobs' | 'log'>,
  everyMs = 60_000,
): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpired(deps)
      .catch((err) => deps.log.warn({ err: (err as Error).message }, 'retention sweep failed'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
