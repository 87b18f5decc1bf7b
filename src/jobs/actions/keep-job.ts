import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { withAccountLock } from '../../store/account-lock.ts';
import { findAccountJob, type JobRow } from '../../store/jobs.ts';
import { keptUsage, markKept, unmarkKept } from '../../store/kept-jobs.ts';
import { readOutputs } from '../read-job.ts';
import { analysisKey } from '../outputs/job-analysis.ts';

type KeepDeps = Pick<JobDeps, 'db' | 'blobs' | 'config'>;

/** What the account keeps now against this server's limit (`KEEP_LIMIT_MB`; 0: Keep is off). */
export async function keepUsageOf(deps: Pick<JobDeps, 'db' | 'config'>, accountId: string) {
  const { jobs, bytes } = await keptUsage(deps.db, accountId);
  return { jobs, usedBytes: bytes, limitBytes: deps.config.keepLimitBytes };
}

/** Bytes a kept job holds in the blob store: its outputs and its analysis (the peaks are a few kB). */
async function jobBytes(deps: Pick<JobDeps, 'blobs'>, row: JobRow): Promise<number> {
  const keys = [...Object.values(readOutputs(row) ?? {}).map((o) => o.key), analysisKey(row.id)];
  const sizes = await Promise.all(keys.map(async (k) => (await deps.blobs.stat(k))?.size ?? 0));
  return sizes.reduce((a, b) => a + b, 0);
}

const MB = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MB`;

/**
 * Keeps a completed job past the retention time: the sweeper skips it until it is un-kept. Its
 * files count against the account's limit; the check and the mark run under the account's lock, so
 * two Keeps at once cannot pass the limit together. Keeping costs no credit: the operator bounds
 * the storage with the limit. A job whose retention already ended (the sweeper may be deleting its
 * files) cannot be kept.
 */
export async function keepJob(deps: KeepDeps, accountId: string, id: string, now = new Date()): Promise<void> {
  const row = await findAccountJob(deps.db, accountId, null, id);
  if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
  if (row.kept_at) return;
  if (row.status === 'EXPIRED') throw new ApiError('OUTPUT_EXPIRED');
  if (row.status !== 'COMPLETED') throw new ApiError('JOB_NOT_COMPLETED', 'Only a completed job can be kept.');
  const limit = deps.config.keepLimitBytes;
  if (limit === 0) throw new ApiError('KEEP_LIMIT_EXCEEDED', 'This server does not keep jobs past the retention time.');
  const bytes = await jobBytes(deps, row);
  await withAccountLock(deps.db, accountId, async (tx) => {
    const used = (await keptUsage(tx, accountId)).bytes;
    if (used + bytes > limit) {
      throw new ApiError(
        'KEEP_LIMIT_EXCEEDED',
        `Keeping this job (${MB(bytes)}) would take your kept files to ${MB(used + bytes)}, past the ${MB(limit)} this server allows; un-keep or delete another job first.`,
      );
    }
    const iso = now.toISOString();
    if (!(await markKept(tx, accountId, id, { keptAt: iso, bytes, nowIso: iso }))) {
      throw new ApiError('OUTPUT_EXPIRED', 'The files of this job are being deleted: its retention time has ended.');
    }
  });
}

/**
 * Returns a kept job to retention: it is deleted one retention period from now (or at its old
 * expiry if that is later), so an un-keep never deletes at once.
 */
export async function unkeepJob(deps: KeepDeps, accountId: string, id: string, now = new Date()): Promise<void> {
  const row = await findAccountJob(deps.db, accountId, null, id);
  if (!row) throw new ApiError('JOB_NOT_FOUND', `No job '${id}'.`);
  if (!row.kept_at) return;
  const fresh = now.getTime() + deps.config.retentionSeconds * 1000;
  const expires = new Date(Math.max(fresh, row.expires_at ? Date.parse(row.expires_at) : 0)).toISOString();
  await unmarkKept(deps.db, accountId, id, expires);
}
