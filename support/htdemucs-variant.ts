import type { ExecutionProvider } from '../src/domain/vocabulary.ts';
import { engineProcessEnv } from '../src/separation/engine-env.ts';
import type { SeparationEngineOptions } from '../src/separation/engine.ts';

/**
 * Another way of running HTDemucs than the product's, for benchmarks and the test that compares
 * the rewrites with the graph as exported. The product carries no switch for these: the engine
 * starts a separation process of this variant (htdemucs-variant-process.ts), composed from the
 * engine's own pieces.
 */
export interface HtdemucsVariant {
  /** The prepared graph in parts (the product's), the prepared graph whole, or the graph as exported. */
  graph: 'parts' | 'whole' | 'as-exported';
  /** FAST runs its int8 copy (the product's); false: every tier runs the float graph. */
  int8Fast: boolean;
}

/** The environment variable the variant's process reads its variant from. */
export const VARIANT_VARIABLE = 'STEMFORGE_HTDEMUCS_VARIANT';

/** The SeparationEngine options that run `variant`. */
export function variantEngine(
  variant: HtdemucsVariant,
  provider: ExecutionProvider = 'cpu',
): Pick<SeparationEngineOptions, 'processModule' | 'env'> {
  return {
    processModule: new URL('./htdemucs-variant-process.ts', import.meta.url),
    env: { ...engineProcessEnv(process.env, provider), [VARIANT_VARIABLE]: JSON.stringify(variant) },
  };
}
