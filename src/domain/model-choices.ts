import { OUTPUT_TYPES, type OutputTypeValue, QUALITIES, type QualityValue } from './vocabulary.ts';

/** The operator's choice of the model that serves an output type (at one tier, or at all of them). */
export interface ModelChoice {
  outputType: OutputTypeValue;
  /** Absent: every tier. */
  tier?: QualityValue;
  model: string;
}

/**
 * Parses `SEPARATION_MODELS`: comma-separated `OUTPUT_TYPE[:TIER]=MODEL`, for example
 * `VOCALS:BEST=kim-vocal-2,INSTRUMENTAL=inst-hq-3`. Throws with the entry at fault.
 */
export function parseModelChoices(text: string): ModelChoice[] {
  const choices: ModelChoice[] = [];
  for (const entry of text
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)) {
    const m = /^([A-Z_]+)(?::([A-Z]+))?=([A-Za-z0-9][A-Za-z0-9._-]*)$/.exec(entry);
    const [, outputType, tier, model] = m ?? [];
    if (!outputType || !model) throw new Error(`'${entry}' is not OUTPUT_TYPE[:TIER]=MODEL`);
    if (!(OUTPUT_TYPES as readonly string[]).includes(outputType))
      throw new Error(`'${entry}': ${outputType} is not one of ${OUTPUT_TYPES.join(', ')}`);
    if (tier !== undefined && !(QUALITIES as readonly string[]).includes(tier))
      throw new Error(`'${entry}': ${tier} is not one of ${QUALITIES.join(', ')}`);
    choices.push({
      outputType: outputType as OutputTypeValue,
      ...(tier ? { tier: tier as QualityValue } : {}),
      model,
    });
  }
  return choices;
}

/** The model the operator chose for an output type at a tier: a tier's own choice first, then an all-tier one. */
export function chosenModel(
  choices: readonly ModelChoice[],
  outputType: OutputTypeValue,
  tier: QualityValue,
): string | undefined {
  return (
    choices.find((c) => c.outputType === outputType && c.tier === tier)?.model ??
    choices.find((c) => c.outputType === outputType && c.tier === undefined)?.model
  );
}
