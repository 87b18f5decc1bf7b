import type { JobDeps } from '../deps.ts';
import { getBalanceSeconds, holdCredits } from '../../store/credits.ts';
import { insertJob, newJobRow } from '../../store/jobs.ts';
import { findAccount } from '../../store/accounts.ts';
import type { JobKind } from '../../store/schema.ts';
import { insufficientCredits } from './acquire-input.ts';
import type { JobInputOf, JobOptionsOf } from '../payloads.ts';
import { createJobCallback } from '../../store/webhooks.ts';
import { completeIdempotencyKey, type IdempotentAnswer } from '../../store/idempotency-keys.ts';
import { ApiError } from '../../domain/errors.ts';
import { assertPublicUrl } from '../../net/address-guard.ts';
import { tierLabel } from '../../metrics/labels.ts';
import { safeError } from '../../queue/log-swallowed.ts';
import { requireFfmpeg } from '../../domain/tool-missing.ts';

interface NewJobFields {
  id: string;
  accountId: string;
  metadata?: Record<string, unknown> | null;
  /** Blob key of the stored input; null when a download stage still has to fetch it. */
  sourceKey: string | null;
  /** Measured (or site-reported) duration; null when unknown until the download measures it. */
  durationSeconds: number | null;
  /** Credits the job is quoted at; null when only an estimate is held. */
  creditsRequired: number | null;
  /** Credits to hold now (the quote, or the estimate). */
  hold: number;
  createdAt: string;
  /** The job's own webhook (`callbackUrl`), created with the job. */
  callbackUrl?: string;
}

/** A job to insert: its payloads typed by its kind (`src/jobs/payloads.ts`). */
export type NewJob = {
  [K in JobKind]: NewJobFields & { kind: K; input: JobInputOf<K>; options: JobOptionsOf<K> };
}[JobKind];

/**
 * Holds the credits (unless metering is off) and inserts the job in one transaction (a job never exists without its hold;
 * two racing creations cannot overdraw the balance, and a 402 or a 503 leaves nothing behind), once
 * the queue has answered a probe, then queues its first stage: `download` while there is no stored input, else `inference`. Returns
 * `created(callbackSecret)`, the route's answer; with an Idempotency-Key claim that answer is
 * stored in the same transaction, and a claim lost meanwhile (another request took it over after
 * a stall) rolls the job back with 409 IDEMPOTENCY_KEY_IN_PROGRESS.
 */
export async function insertHeldJob<T>(
  deps: Pick<JobDeps, 'config' | 'db' | 'queue' | 'metrics' | 'log'>,
  job: NewJob,
  created: (callbackSecret: string | undefined) => T,
  idempotent?: IdempotentAnswer,
): Promise<T> {
  // Embedded, this process runs the job: without ffmpeg it never could (a scale-out API leaves that to the workers).
  if (deps.config.deployment.mode === 'embedded') requireFfmpeg(deps.config);
  // Refused up front with a clear 400, like a webhook; the sender re-checks at connect time.
  if (job.callbackUrl) await assertPublicUrl(job.callbackUrl, { allowPrivate: deps.config.allowPrivateUrls });
  // The queue must take the job before anything is held or stored: with Redis away this answers 503
  // and leaves nothing behind (a job and its hold written, then refused, would run anyway).
  await deps.queue.probe?.();
  const answer = await deps.db.transaction().execute(async (tx) => {
    // METERING=off (a personal install): nothing is held, so nothing is ever refused for credit.
    if (deps.config.metering && !(await holdCredits(tx, job.accountId, job.hold, job.id))) {
      throw insufficientCredits(
        deps,
        job.hold,
        await getBalanceSeconds(tx, job.accountId),
        await findAccount(tx, job.accountId),
      );
    }
    await insertJob(
      tx,
      newJobRow({
        id: job.id,
        account_id: job.accountId,
        kind: job.kind,
        input_json: JSON.stringify(job.input),
        options_json: JSON.stringify(job.options),
        metadata_json: job.metadata ? JSON.stringify(job.metadata) : null,
        source_key: job.sourceKey,
        duration_seconds: job.durationSeconds,
        credits_required: job.creditsRequired,
        created_at: job.createdAt,
      }),
    );
    const secret = job.callbackUrl
      ? (await createJobCallback(tx, job.accountId, job.id, job.callbackUrl)).secret
      : undefined;
    const body = created(secret);
    if (idempotent) {
      const { accountId, key, claimId, status } = idempotent;
      if (!(await completeIdempotencyKey(tx, accountId, key, claimId, status, idempotent.render(body)))) {
        throw new ApiError('IDEMPOTENCY_KEY_IN_PROGRESS', undefined, {}, { 'Retry-After': '1' });
      }
    }
    return body;
  });
  deps.metrics.jobsCreated.inc({ kind: job.kind, tier: tierLabel(job.options) });
  if (deps.config.metering) deps.metrics.creditsHeld.inc(job.hold);
  // Committed, so it is the client's job whatever happens now: if the queue went away since the
  // probe, the workers' re-offer of runnable jobs announces it once Redis is back. No 503 here.
  await deps.queue
    .enqueue({ id: job.id, kind: job.kind }, job.sourceKey ? 'inference' : 'download')
    .catch((err) =>
      deps.log.warn({ jobId: job.id, error: safeError(err) }, 'job stored but not announced; the re-offer will'),
    );
  return answer;
}
