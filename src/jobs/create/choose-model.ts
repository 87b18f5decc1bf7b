import type { OutputTypeValue } from '../../domain/vocabulary.ts';
import { type ModelSpec, separationModelFor } from '../../models/registry.ts';

/**
 * The model a new separation job runs: decided here, once, when the job is created, and stored
 * with it (`model` in its options, payloads.ts). The workers and engines read it from the job and
 * never ask the registry again, so a registry change cannot reroute a job already queued.
 */
export function chooseSeparationModel(outputType: OutputTypeValue): ModelSpec {
  return separationModelFor(outputType);
}
