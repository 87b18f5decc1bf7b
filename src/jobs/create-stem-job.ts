import type { z } from 'zod';
import type { JobDeps } from './deps.ts';
import { ApiError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { CreateJobRequest } from '../contract/jobs.ts';
import { checkLimits, inputFromUpload, inputFromUrl } from './acquire-input.ts';
import { insertHeldJob } from './insert-held-job.ts';
import { estimateSeconds } from './estimate.ts';
import { SIX_STEM_MODEL } from '../separation/stems.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../domain/job-state.ts';
import { DENOISE_MODEL } from '../denoise/model-files.ts';
import { requireModel } from './require-model.ts';
import type { IdempotentAnswer } from '../store/idempotency-keys.ts';

/**
 * POST /jobs: validates the request, resolves and measures the input, then holds the credits and
 * creates the job in one transaction (`insertHeldJob`). Returns the JobCreated body.
 */
export async function createStemJob(
  deps: JobDeps,
  accountId: string,
  body: z.infer<typeof CreateJobRequest>,
  idempotent?: IdempotentAnswer,
) {
  if (!body.uploadKey && !body.sourceUrl)
    throw new ApiError('MISSING_INPUT', 'Send exactly one of uploadKey or sourceUrl; neither was given.');
  if (body.uploadKey && body.sourceUrl) throw new ApiError('CONFLICTING_INPUT');
  if (body.outputType === 'SIX_STEMS') {
    if (body.quality !== 'BEST') {
      throw new ApiError('VALIDATION_ERROR', "Invalid field 'quality' in body: SIX_STEMS requires quality BEST.", {
        field: 'quality',
      });
    }
    await requireModel(deps.models, SIX_STEM_MODEL, 'SIX_STEMS');
  }
  if (body.denoiseVocals && (STEMS_BY_OUTPUT_TYPE[body.outputType] as readonly string[]).includes('vocals')) {
    await requireModel(deps.models, DENOISE_MODEL, 'denoiseVocals');
  }
  const input = body.uploadKey
    ? await inputFromUpload(deps, accountId, body.uploadKey)
    : await inputFromUrl(deps, accountId, body.sourceUrl!);
  const credits = checkLimits(deps, input);
  const fileName = body.fileName ?? input.fileName;
  const now = new Date().toISOString();
  const id = newId('job');
  const jobInput = { fileName, billedSeconds: credits, fileSizeBytes: input.fileSizeBytes };
  const options = {
    outputType: body.outputType,
    quality: body.quality,
    outputFormat: body.outputFormat,
    denoiseVocals: body.denoiseVocals,
  };
  const estimatedSeconds = await estimateSeconds(
    deps.db,
    ['stem'],
    input.durationSeconds,
    body.quality,
    deps.config.workers.concurrency,
  );
  return insertHeldJob(
    deps,
    {
      id,
      accountId,
      kind: 'stem',
      input: jobInput,
      options,
      metadata: body.metadata,
      sourceKey: input.sourceKey,
      durationSeconds: input.durationSeconds,
      creditsRequired: credits,
      hold: credits,
      createdAt: now,
      callbackUrl: body.callbackUrl,
    },
    (callbackSecret) => ({
      id,
      status: 'PENDING' as const,
      progress: 0,
      createdAt: now,
      estimatedSeconds,
      creditsRequired: credits,
      input: { fileName, durationSeconds: credits, fileSizeBytes: input.fileSizeBytes },
      options: { outputType: options.outputType, quality: options.quality, outputFormat: options.outputFormat },
      outputs: null,
      metadata: body.metadata ?? null,
      ...(callbackSecret ? { callbackSecret } : {}),
    }),
    idempotent,
  );
}
