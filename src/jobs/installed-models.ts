import type { JobDeps } from './deps.ts';
import { familyOf, isShipped } from '../models/registry.ts';
import { allModelSpecs } from '../models/folder-models.ts';

/**
 * The separation models jobs can name (`model` in POST /v1/jobs): the registry's and the folder
 * models, those installed where jobs run (the models port: this server, or a live worker), with
 * what each separates and serves. GET /v1/models and the dashboard's form list them.
 */
export async function installedModels(deps: Pick<JobDeps, 'config' | 'models'>) {
  const specs = allModelSpecs(deps.config.modelsDir).filter((s) => s.task === 'separation');
  const listed = await Promise.all(
    specs.map(async (spec) => (isShipped(spec) || (await deps.models.has(spec.name)) ? spec : undefined)),
  );
  return listed
    .filter((s) => s !== undefined)
    .map((spec) => ({
      name: spec.name,
      family: familyOf(spec),
      description: spec.description,
      stems: [...(spec.stems ?? [])],
      outputTypes: [...(spec.serves?.outputTypes ?? [])],
      tiers: [...(spec.serves?.tiers ?? [])],
    }));
}
