import { JOB_KINDS, type JobKind } from '../domain/job-kinds.ts';
import type { JobDeps } from './deps.ts';
import { OUTPUT_FORMATS, OUTPUT_TYPES, QUALITIES, STEMS_BY_OUTPUT_TYPE } from '../domain/vocabulary.ts';
import { denoiseModel, isShipped, separationModelFor } from '../models/registry.ts';
import { paceOf, paces } from './estimate.ts';
import { installedModels } from './installed-models.ts';

/** The tiers a kind's estimates use (its `paceTier`s); keyed by the catalog. */
const PACE_TIERS: Record<JobKind, readonly string[]> = {
  stem: QUALITIES,
  video: QUALITIES,
  track: QUALITIES,
  denoise: ['DENOISE'],
};

/** Each tier once. */
function paceTiers(): string[] {
  return [...new Set(JOB_KINDS.flatMap((kind) => PACE_TIERS[kind]))];
}

/**
 * What this deployment can do now, for a form that offers only that: per output type its stems,
 * the tiers the registry serves it at and whether its model is installed where jobs run (the
 * models port: this server, or a live worker); whether voice cleaning is; the limits a file must
 * fit; and the processing pace per tier (a part per job and one per audio second, as measured
 * here), for an estimate of the time. The same checks refuse a
 * job that asks for more (`create-stem-job.ts`, `require-model.ts`).
 */
export async function capabilities(deps: Pick<JobDeps, 'db' | 'config' | 'models'>) {
  const outputTypes = await Promise.all(
    OUTPUT_TYPES.map(async (outputType) => {
      const model = separationModelFor(outputType);
      return {
        outputType,
        stems: [...STEMS_BY_OUTPUT_TYPE[outputType]],
        tiers: [...(model.serves?.tiers ?? [])],
        model: model.name,
        installed: isShipped(model) || (await deps.models.has(model.name)),
      };
    }),
  );
  const cleaner = denoiseModel();
  const measured = await paces(deps.db);
  const { maxFileSizeBytes, maxDurationSeconds, minDurationSeconds } = deps.config.limits;
  const models = (await installedModels(deps)).map(({ name, family, outputTypes }) => ({ name, family, outputTypes }));
  return {
    outputTypes,
    models,
    voiceCleaning: { model: cleaner.name, installed: isShipped(cleaner) || (await deps.models.has(cleaner.name)) },
    formats: [...OUTPUT_FORMATS],
    limits: { maxFileSizeBytes, maxDurationSeconds, minDurationSeconds },
    /** One credit per second of audio, rounded up (`creditsForDuration`). */
    creditsPerAudioSecond: 1,
    /** False where METERING=off: jobs cost nothing, whatever the estimate says they would. */
    metering: deps.config.metering,
    pace: Object.fromEntries(paceTiers().map((tier) => [tier, paceOf(measured, tier)])),
    workerConcurrency: deps.config.workers.concurrency,
  };
}
