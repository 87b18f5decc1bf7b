import type { JobRow } from '../../store/jobs.ts';
import { readJobOf, readOutputs } from '../read-job.ts';
import { presentProgress } from './present-progress.ts';

/** The single output of a denoise job, under this name in `outputs_json`. */
export const DENOISED_OUTPUT = 'denoised';

/** Path of the download route, relative to the site URL (not under /v1: the contract puts it there). */
export const denoiseDownloadPath = (id: string) => `/api/files/download-denoise/${id}`;

/** The stored cleaned file of a COMPLETED job (null otherwise, or once retention removed it). */
export function denoisedOutput(row: JobRow) {
  if (row.status !== 'COMPLETED' || !row.outputs_json) return null;
  return readOutputs(row)?.[DENOISED_OUTPUT] ?? null;
}

/**
 * The contract's denoise job object. `outputFilePath` is the blob-storage key of the result (stable,
 * opaque to clients); `downloadUrl` is where a client actually fetches it with its API key.
 */
export function presentDenoiseJob(row: JobRow, siteUrl: string) {
  const { input, options } = readJobOf(row, 'denoise');
  const output = denoisedOutput(row);
  return {
    id: row.id,
    jobId: row.id,
    status: row.status,
    progress: row.progress,
    inputFileName: input.fileName,
    durationSeconds: input.billedSeconds,
    outputFormat: options.outputFormat,
    attenuationLimitDb: options.attenuationLimitDb ?? null,
    outputFilePath: output?.key ?? null,
    downloadUrl: output ? `${siteUrl}${denoiseDownloadPath(row.id)}` : null,
    creditsCharged: row.credits_charged ?? 0,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    expiresAt: row.expires_at,
    errorMessage: row.error_message,
    ...presentProgress(row),
  };
}
