import { defineRoute } from '../../routing/route.ts';
import { IdParams } from '../../contract/common.ts';
import { ApiError } from '../../domain/errors.ts';
import { findAccountJob } from '../../store/jobs.ts';
import { denoisedOutput } from '../../jobs/present/present-denoise-job.ts';
import { DOWNLOAD_URL_TTL_SECONDS } from '../../jobs/outputs/outputs.ts';
import type { Runtime } from '../../runtime.ts';

/**
 * `GET {site}/api/files/download-denoise/{id}` (Bearer key): a 302 to a freshly signed 1-hour URL of
 * the cleaned file. A redirect rather than streaming keeps the bytes off the API process and works
 * the same for both blob stores (disk: served by `/v1/blobs/...`, S3: a presigned URL).
 */
export function downloadDenoiseRoute(rt: Runtime) {
  return defineRoute({
    method: 'GET',
    url: '/api/files/download-denoise/:id',
    summary: 'Download the cleaned audio of a completed denoise job (302 to a signed URL)',
    description:
      'Site URL, not under /v1. Redirects (302, Location valid 1 hour) to the file; 409 JOB_NOT_COMPLETED while PENDING or PROCESSING and for a FAILED job (with its reason), 410 OUTPUT_EXPIRED after retention, 404 JOB_NOT_FOUND.',
    tag: 'Denoise jobs',
    auth: 'apiKey',
    params: IdParams,
    status: 302,
    response: null,
    errors: ['JOB_NOT_FOUND', 'JOB_NOT_COMPLETED', 'OUTPUT_EXPIRED'],
    handler: async ({ params, auth, reply }) => {
      const row = await findAccountJob(rt.db, auth.accountId, 'denoise', params.id);
      if (!row) throw new ApiError('JOB_NOT_FOUND', `No denoise job '${params.id}'.`);
      if (row.status === 'PENDING' || row.status === 'PROCESSING') {
        throw new ApiError(
          'JOB_NOT_COMPLETED',
          `The job is ${row.status} (${row.progress} %); poll GET /v1/denoise-jobs/${row.id} until COMPLETED.`,
          {
            jobStatus: row.status,
          },
        );
      }
      if (row.status === 'FAILED') {
        throw new ApiError(
          'JOB_NOT_COMPLETED',
          `The job failed and has no output: ${row.error_message ?? 'unknown error'}`,
          { jobStatus: 'FAILED' },
        );
      }
      const output = denoisedOutput(row);
      // EXPIRED, or a completed job whose file retention already removed: same answer.
      if (!output || !(await rt.blobs.stat(output.key))) {
        throw new ApiError('OUTPUT_EXPIRED', 'The cleaned file has been deleted after the retention period.', {
          jobStatus: row.status,
        });
      }
      const { url } = await rt.blobs.signedDownloadUrl(output.key, {
        fileName: output.fileName,
        contentType: output.contentType,
        expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
      });
      return reply.header('Cache-Control', 'no-store').redirect(url, 302);
    },
  });
}
