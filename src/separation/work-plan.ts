import type { QualityValue } from '../domain/vocabulary.ts';
import { type ModelSpec, segmentFrames } from '../models/registry.ts';
import { planMdxChunks } from './mdx-chunks.ts';
import { QUALITY_SETTINGS } from './quality.ts';
import { planSegments } from './segment-plan.ts';

/**
 * How many network runs a separation of `frames` takes, each family by its own plan (HTDemucs: the
 * tier's segments, each shifted pass its own; MDX-Net: its chunks), for the progress a job reports
 * before the first one finishes.
 */
export function plannedRuns(spec: ModelSpec, frames: number, quality: QualityValue): number {
  if (spec.mdx) return planMdxChunks(frames, spec.mdx).starts.length;
  return planSegments(frames, {
    ...QUALITY_SETTINGS[quality],
    segment: segmentFrames(spec),
    sampleRate: spec.sampleRate,
  }).length;
}
