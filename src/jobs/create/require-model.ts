import { ApiError } from '../../domain/errors.ts';
import type { ModelAvailability } from '../../models/availability.ts';
import { getModelSpec } from '../../models/registry.ts';

/**
 * Refuses a job whose model no process of this deployment can run (400 MODEL_NOT_INSTALLED), before
 * any credit is held: accepting it would only end in a FAILED job. `feature` names what was asked.
 */
export async function requireModel(models: ModelAvailability, model: string, feature: string): Promise<void> {
  if (await models.has(model)) return;
  const spec = getModelSpec(model);
  // Models without a pinned download need the operator to say where from; a folder model, its card too.
  const pull = !spec
    ? `${model} --url <URL> --sha256 <HEX> --card model.json`
    : spec.source.kind === 'url' && !spec.source.url
      ? `${model} --url <URL> --sha256 <HEX>`
      : model;
  throw new ApiError(
    'MODEL_NOT_INSTALLED',
    `${feature} needs the '${model}' model, which ${models.missingWhere}. An operator can add it${models.installWhere} with: npx stemforge models pull ${pull}.`,
    { model },
  );
}
