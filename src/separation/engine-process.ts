// Child-process entry of the separation engine. A process of its own so that its malloc tunables
// apply (engine-env.ts), its memory goes back to the system when it ends, and a crash inside
// onnxruntime cannot take the API down with it.
import type { SeparationFamily } from '../models/registry.ts';
import type { EngineInit } from './engine-protocol.ts';
import { productHtdemucs } from './htdemucs-models.ts';
import { mdxModels } from './mdx-models.ts';
import { type ProcessModels, serveSeparation } from './separation-server.ts';

/** Each family's pre- and post-processing around its session; the process around them is the same. */
const FAMILIES: Record<SeparationFamily, (init: EngineInit) => ProcessModels> = {
  htdemucs: productHtdemucs,
  mdx: mdxModels,
};

serveSeparation((init) => FAMILIES[init.family](init));
