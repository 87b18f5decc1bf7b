import type { z } from 'zod';
import type { JobDeps } from '../deps.ts';
import { newId } from '../../domain/ids.ts';
import { sanitizeFileName } from '../../domain/formats.ts';
import type { CreateDenoiseJobRequest } from '../../contract/denoise.ts';
import { checkLimits, inputFromUpload } from './acquire-input.ts';
import type { IdempotentAnswer } from '../../store/idempotency-keys.ts';
import { insertHeldJob } from './insert-held-job.ts';
import { estimateSeconds } from '../estimate.ts';
import { requireModel } from './require-model.ts';
import { holdForUnmeasured } from './unmeasured-hold.ts';
import { denoiseModel } from '../../models/registry.ts';
import type { DenoiseInput, DenoiseOptions } from '../payloads.ts';

/**
 * POST /denoise-jobs: resolves the caller's upload (already probed when it was stored), applies the
 * limits to the MEASURED size and duration, and holds the credits in the transaction that inserts
 * the job. The client's `durationSeconds` and `inputFileSize` are kept for support but never billed:
 * a client cannot under-declare its way to a cheaper job, and an honest rounding difference is not
 * an error.
 */
export async function createDenoiseJob(
  deps: Pick<JobDeps, 'config' | 'db' | 'queue' | 'log' | 'models' | 'blobs' | 'metrics'>,
  accountId: string,
  body: z.infer<typeof CreateDenoiseJobRequest>,
  idempotent?: IdempotentAnswer,
) {
  await requireModel(deps.models, denoiseModel().name, 'Voice cleaning');
  const input = await inputFromUpload(deps, accountId, body.inputFilePath);
  // An upload PUT straight to S3 is not measured yet: an estimate is held, settled by the worker.
  const measured = input.durationSeconds !== null;
  const credits =
    input.durationSeconds === null ? await holdForUnmeasured(deps, accountId, input) : checkLimits(deps, input);
  const now = new Date().toISOString();
  const id = newId('job');
  const jobInput: DenoiseInput = {
    fileName: sanitizeFileName(body.inputFileName),
    billedSeconds: credits,
    fileSizeBytes: input.fileSizeBytes,
    declared: { durationSeconds: body.durationSeconds, fileSizeBytes: body.inputFileSize },
  };
  const options: DenoiseOptions = { outputFormat: body.outputFormat };
  if (body.attenuationLimitDb) options.attenuationLimitDb = body.attenuationLimitDb;
  if (input.durationSeconds !== null && Math.abs(body.durationSeconds - input.durationSeconds) > 2) {
    deps.log.info(
      { jobId: id, declared: body.durationSeconds, measured: input.durationSeconds },
      'declared duration differs from the measured one; billing the measured',
    );
  }
  const estimatedSeconds = await estimateSeconds(deps, input.durationSeconds ?? credits, 'DENOISE');
  return insertHeldJob(
    deps,
    {
      id,
      accountId,
      kind: 'denoise',
      input: jobInput,
      options,
      sourceKey: input.sourceKey,
      durationSeconds: input.durationSeconds,
      creditsRequired: measured ? credits : null,
      hold: credits,
      createdAt: now,
    },
    () => ({
      jobId: id,
      id,
      status: 'PENDING' as const,
      outputFormat: options.outputFormat,
      createdAt: now,
      durationSeconds: credits,
      creditsRequired: credits,
      estimatedSeconds,
    }),
    idempotent,
  );
}
