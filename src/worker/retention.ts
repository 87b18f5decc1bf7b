import type { Runtime } from '../runtime.ts';
import { listExpiredJobs, markExpired } from '../store/jobs.ts';
import { deleteUpload, listExpiredUploads } from '../store/uploads.ts';
import { uploadPrefix } from '../uploads/grant.ts';

/**
 * Retention: when a job's `expiresAt` passes, its outputs are deleted, the job becomes EXPIRED and
 * its `outputs` null. Uploaded inputs are deleted once they are older than the retention period
 * and no unfinished job still needs them.
 */
export async function sweepExpired(rt: Runtime, now = new Date()): Promise<{ jobs: number; uploads: number }> {
  const nowIso = now.toISOString();
  let jobs = 0;
  for (const job of await listExpiredJobs(rt.db, nowIso)) {
    await rt.store.deletePrefix(`jobs/${job.id}/`);
    if (job.source_key?.startsWith('sources/')) await rt.store.delete(job.source_key);
    if (await markExpired(rt.db, job.id)) jobs++;
  }
  const cutoff = new Date(now.getTime() - rt.config.retentionSeconds * 1000).toISOString();
  let uploads = 0;
  for (const upload of await listExpiredUploads(rt.db, cutoff)) {
    const inUse = await rt.db
      .selectFrom('jobs')
      .select('id')
      .where('source_key', '=', upload.storage_key)
      .where('status', 'in', ['PENDING', 'PROCESSING'])
      .executeTakeFirst();
    if (inUse) continue;
    // The whole prefix: the published file and any object a PUT cut off by a crash left beside it.
    await rt.store.deletePrefix(uploadPrefix(upload));
    await deleteUpload(rt.db, upload.id);
    uploads++;
  }
  return { jobs, uploads };
}

export function startRetentionSweeper(rt: Runtime, everyMs = 60_000): { stop(): void } {
  let running = false;
  const timer = setInterval(() => {
    if (running) return;
    running = true;
    sweepExpired(rt)
      .catch((err) => rt.log.warn({ err: (err as Error).message }, 'retention sweep failed'))
      .finally(() => (running = false));
  }, everyMs);
  timer.unref();
  return { stop: () => clearInterval(timer) };
}
