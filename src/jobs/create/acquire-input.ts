import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { creditsForDuration } from '../../domain/credits.ts';
import { sanitizeFileName } from '../../domain/formats.ts';
import { newId } from '../../domain/ids.ts';
import { findUpload } from '../../store/uploads.ts';
import { measureAudioOrReject } from '../../uploads/measure.ts';
import { fetchToFile } from '../../sources/safe-fetch.ts';
import { holdPath } from '../../storage/held-paths.ts';
import { hasJobWithSource } from '../../store/job-edits.ts';

/** An input file in storage, measured by decoding (`src/uploads/measure.ts`). */
export interface AcquiredInput {
  sourceKey: string;
  fileName: string;
  fileSizeBytes: number;
  durationSeconds: number;
}

/** An upload PUT straight to the blob store: its size is known (the store's), its length not yet. */
export type UnmeasuredInput = Omit<AcquiredInput, 'durationSeconds'> & { durationSeconds: null };

/**
 * Resolves an upload key of the caller to its stored file: probed and measured when it came through
 * this API, or (a `direct` upload, scale-out on S3) only looked up in the store (a HEAD: no byte of
 * it passes through here) and measured later by the worker (`src/worker/measure-input.ts`).
 */
export async function inputFromUpload(
  deps: Pick<JobDeps, 'db' | 'blobs' | 'config'>,
  accountId: string,
  uploadKey: string,
): Promise<AcquiredInput | UnmeasuredInput> {
  const upload = await findUpload(deps.db, uploadKey);
  if (!upload || upload.account_id !== accountId) {
    throw new ApiError('UPLOAD_NOT_FOUND', `No upload '${uploadKey}' belongs to this account.`);
  }
  if (upload.status === 'direct') {
    const stored = await deps.blobs.stat(upload.storage_key);
    if (!stored) {
      throw new ApiError(
        'UPLOAD_NOT_FOUND',
        `Upload '${uploadKey}' has no file yet: PUT the file to its uploadUrl first.`,
      );
    }
    const max = deps.config.limits.maxFileSizeBytes;
    if (stored.size > max) {
      // No job can ever use it: it goes at once, not with the upload's retention.
      await deps.blobs.delete(upload.storage_key);
      throw new ApiError('FILE_TOO_LARGE', `The file is ${stored.size} bytes; the maximum is ${max} bytes.`, {
        maxFileSizeBytes: max,
      });
    }
    return {
      sourceKey: upload.storage_key,
      fileName: upload.file_name,
      fileSizeBytes: stored.size,
      durationSeconds: null,
    };
  }
  if (upload.status !== 'uploaded' || upload.size_bytes === null || upload.duration_seconds === null) {
    throw new ApiError(
      'UPLOAD_NOT_FOUND',
      `Upload '${uploadKey}' has no file yet: PUT the file to its uploadUrl first.`,
    );
  }
  return {
    sourceKey: upload.storage_key,
    fileName: upload.file_name,
    fileSizeBytes: upload.size_bytes,
    durationSeconds: upload.duration_seconds,
  };
}

/**
 * Fetches a remote audio file with the safe fetcher (public http(s) only, size cap, timeouts,
 * redirect limit), measures it by decoding and stores it, so the create response reports the real
 * duration and credits.
 */
export async function inputFromUrl(
  deps: Pick<JobDeps, 'config' | 'blobs' | 'log'>,
  accountId: string,
  sourceUrl: string,
): Promise<AcquiredInput> {
  const dir = join(deps.config.dataDir, 'tmp');
  await mkdir(dir, { recursive: true });
  const tmp = join(dir, `${newId('src')}.part`);
  const release = holdPath(tmp);
  try {
    const fetched = await fetchToFile(sourceUrl, tmp, {
      allowPrivate: deps.config.allowPrivateUrls,
      timeoutMs: deps.config.sourceFetch.timeoutMs,
      maxRedirects: deps.config.sourceFetch.maxRedirects,
      maxBytes: deps.config.limits.maxFileSizeBytes,
    });
    const measured = await measureAudioOrReject(deps, tmp);
    const key = `sources/${accountId}/${newId('src')}/source`;
    await deps.blobs.putFile(key, tmp, { contentType: fetched.contentType ?? 'application/octet-stream' });
    return {
      sourceKey: key,
      fileName: sanitizeFileName(fetched.suggestedFileName ?? 'audio'),
      fileSizeBytes: fetched.bytes,
      durationSeconds: measured.durationSeconds,
    };
  } finally {
    await rm(tmp, { force: true });
    release();
  }
}

/** Deletes a fetched source (`inputFromUrl`) that no job refers to: its job was refused. */
export async function discardUnusedSource(deps: Pick<JobDeps, 'db' | 'blobs'>, sourceKey: string): Promise<void> {
  if (!(await hasJobWithSource(deps.db, sourceKey))) await deps.blobs.delete(sourceKey);
}

/** Applies the size and duration limits; returns the credits the input costs. */
export function checkLimits(
  deps: Pick<JobDeps, 'config'>,
  input: { fileSizeBytes: number; durationSeconds: number },
  maxDurationSeconds = deps.config.limits.maxDurationSeconds,
): number {
  const { maxFileSizeBytes, minDurationSeconds } = deps.config.limits;
  if (input.fileSizeBytes > maxFileSizeBytes) {
    throw new ApiError(
      'FILE_TOO_LARGE',
      `The file is ${input.fileSizeBytes} bytes; the maximum is ${maxFileSizeBytes} bytes.`,
    );
  }
  if (input.durationSeconds > maxDurationSeconds) {
    throw new ApiError(
      'AUDIO_TOO_LONG',
      `The audio lasts ${Math.ceil(input.durationSeconds)} s; the maximum is ${maxDurationSeconds} s.`,
    );
  }
  if (input.durationSeconds < minDurationSeconds) {
    throw new ApiError(
      'AUDIO_TOO_SHORT',
      `The audio lasts ${input.durationSeconds.toFixed(1)} s; the minimum is ${minDurationSeconds} s.`,
    );
  }
  return creditsForDuration(input.durationSeconds);
}

/**
 * The 402 answer, with what the job needs and where to buy more. An admin (who runs the instance)
 * is also told how to grant credit: the dashboard's Admin page or the command line.
 */
export function insufficientCredits(
  deps: Pick<JobDeps, 'config'>,
  required: number,
  balance: number,
  account?: { id: string; isAdmin: boolean } | null,
): ApiError {
  return new ApiError(
    'INSUFFICIENT_CREDITS',
    `This job needs ${required} credits (seconds); the balance is ${balance}.${grantHint(deps.config, account, required - balance)}`,
    {
      requiredSeconds: required,
      purchaseUrl: deps.config.purchaseUrl,
    },
  );
}

/**
 * For an admin (who runs the instance) short of credit: where to grant it, the dashboard's Admin
 * page or the command line. Empty for every other account.
 */
export function grantHint(
  config: Pick<JobDeps['config'], 'publicUrl' | 'cliCommand'>,
  account: { id: string; isAdmin: boolean } | null | undefined,
  shortfall: number,
): string {
  if (!account?.isAdmin) return '';
  return (
    ` As an admin you can grant credit on the dashboard's Admin page (${config.publicUrl}/admin), or run: ` +
    `${config.cliCommand} credits grant --account ${account.id} --seconds ${Math.max(shortfall, 1)} ` +
    '(on a personal install, METERING=off turns credits off).'
  );
}
