import { z } from 'zod';
import { OutputType, Quality } from './common.ts';

export const InstalledModel = z
  .object({
    name: z.string(),
    /** The family that runs it: `htdemucs`, `mdx`. */
    family: z.string(),
    description: z.string(),
    /** What it separates, in its output order. */
    stems: z.array(z.string()),
    /** The output types a job may ask it for (`model` in POST /v1/jobs), at these tiers. */
    outputTypes: z.array(OutputType),
    tiers: z.array(Quality),
  })
  .meta({ id: 'InstalledModel' });

export const ModelList = z.object({ models: z.array(InstalledModel) }).meta({ id: 'ModelList' });
