import type { OutputTypeValue, QualityValue } from '../../domain/vocabulary.ts';
import { type ModelSpec, separationModelFor } from '../../models/registry.ts';
import { chosenModel, type ModelChoice } from '../../domain/model-choices.ts';
import { ApiError } from '../../domain/errors.ts';
import { findModelSpec, ModelCardError } from '../../models/folder-models.ts';

/** What a new separation job asks for. */
export interface ModelRequest {
  outputType: OutputTypeValue;
  quality: QualityValue;
  /** The client's choice (`model` in the request body): an installed model's name. */
  model?: string;
}

/**
 * The model a new separation job runs: decided here, once, when the job is created, and stored
 * with it (`model` in its options, payloads.ts). The workers and engines read it from the job and
 * never ask the registry again, so a registry change cannot reroute a job already queued.
 * In order: the model the client named; the operator's choice for the output type and tier
 * (`SEPARATION_MODELS`); the registry's. A name that is no model here, or a model that does not
 * serve the output type, is a 400 on `model`; the tier is checked by the caller.
 */
export function chooseSeparationModel(
  req: ModelRequest,
  o: { modelsDir: string; choices?: readonly ModelChoice[] },
): ModelSpec {
  const named = req.model ?? chosenModel(o.choices ?? [], req.outputType, req.quality);
  if (named === undefined) return separationModelFor(req.outputType);
  const spec = lookUp(named, o.modelsDir);
  if (spec?.task !== 'separation') {
    throw new ApiError(
      req.model === undefined ? 'MODEL_NOT_INSTALLED' : 'VALIDATION_ERROR',
      req.model === undefined
        ? `${req.outputType} is served by the '${named}' model here, which is not installed on this server.`
        : `Invalid field 'model' in body: no separation model '${named}' is installed (GET /v1/models lists them).`,
      req.model === undefined ? { model: named } : { field: 'model' },
    );
  }
  const serves = spec.serves?.outputTypes ?? [];
  if (!serves.includes(req.outputType)) {
    throw new ApiError(
      'VALIDATION_ERROR',
      `Invalid field 'model' in body: the '${named}' model does not serve ${req.outputType} (it serves ${serves.join(', ') || 'no output type'}).`,
      { field: 'model' },
    );
  }
  return spec;
}

/** A model's entry; a folder model whose card cannot be read is no model (the operator's log says why when listed). */
function lookUp(name: string, modelsDir: string): ModelSpec | undefined {
  try {
    return findModelSpec(name, modelsDir);
  } catch (err) {
    if (err instanceof ModelCardError) return undefined;
    throw err;
  }
}
