import type { z } from 'zod';
import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { newId } from '../../domain/ids.ts';
import type { CreateJobRequest } from '../../contract/jobs.ts';
import {
  checkLimits,
  inputFromUpload,
  inputFromUrl,
  type AcquiredInput,
  discardUnusedSource,
  type UnmeasuredInput,
} from './acquire-input.ts';
import { insertHeldJob } from './insert-held-job.ts';
import { estimateSeconds } from '../estimate.ts';
import { denoiseModel, isShipped } from '../../models/registry.ts';
import { chooseSeparationModel } from './choose-model.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../../domain/job-state.ts';
import { requireModel } from './require-model.ts';
import { holdForUnmeasured } from './unmeasured-hold.ts';
import type { IdempotentAnswer } from '../../store/idempotency-keys.ts';

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
  // The model is chosen here, once, and stored with the job; its entry says at which tiers it is
  // offered and whether it ships.
  const model = chooseSeparationModel(body, {
    modelsDir: deps.config.modelsDir,
    choices: deps.config.onnx.separationModels,
  });
  const tiers = model.serves?.tiers ?? [];
  if (!tiers.includes(body.quality)) {
    throw new ApiError(
      'VALIDATION_ERROR',
      `Invalid field 'quality' in body: ${body.outputType} requires quality ${tiers.join(' or ')}.`,
      { field: 'quality' },
    );
  }
  if (!isShipped(model))
    await requireModel(deps.models, model.name, body.model ? `the model '${model.name}'` : body.outputType);
  if (body.denoiseVocals && (STEMS_BY_OUTPUT_TYPE[body.outputType] as readonly string[]).includes('vocals')) {
    await requireModel(deps.models, denoiseModel().name, 'denoiseVocals');
  }
  const create = (input: AcquiredInput | UnmeasuredInput) =>
    createFromInput(deps, accountId, { ...body, model: model.name }, input, idempotent);
  if (body.uploadKey) return create(await inputFromUpload(deps, accountId, body.uploadKey));
  const fetched = await inputFromUrl(deps, accountId, body.sourceUrl!);
  return create(fetched).catch(async (err: unknown) => {
    // A fetched file whose job was refused (too long, 402, ...) belongs to no job: it goes now.
    await discardUnusedSource(deps, fetched.sourceKey);
    throw err;
  });
}

/** The job from its resolved input: limits, the hold (or the estimate) and the insert. */
async function createFromInput(
  deps: JobDeps,
  accountId: string,
  body: z.infer<typeof CreateJobRequest> & { model: string },
  input: AcquiredInput | UnmeasuredInput,
  idempotent?: IdempotentAnswer,
) {
  // An upload PUT straight to S3 is not measured yet: an estimate is held, settled by the worker.
  const measured = input.durationSeconds !== null;
  const credits =
    input.durationSeconds === null ? await holdForUnmeasured(deps, accountId, input) : checkLimits(deps, input);
  const fileName = body.fileName ?? input.fileName;
  const now = new Date().toISOString();
  const id = newId('job');
  const jobInput = { fileName, billedSeconds: credits, fileSizeBytes: input.fileSizeBytes };
  const options = {
    outputType: body.outputType,
    quality: body.quality,
    outputFormat: body.outputFormat,
    denoiseVocals: body.denoiseVocals,
    model: body.model,
  };
  const estimatedSeconds = await estimateSeconds(deps, input.durationSeconds ?? credits, body.quality);
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
      creditsRequired: measured ? credits : null,
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
