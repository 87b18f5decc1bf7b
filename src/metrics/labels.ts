import { QUALITIES, type QualityValue } from '../domain/vocabulary.ts';

/** The `tier` label of a job: its quality tier, or `none` for kinds without one (voice cleaning). */
export function tierLabel(options: unknown): QualityValue | 'none' {
  const quality = options && typeof options === 'object' ? (options as { quality?: unknown }).quality : undefined;
  return QUALITIES.find((q) => q === quality) ?? 'none';
}

/** The same from a stored `options_json`; a row that does not parse is `none`, never an error. */
export function storedTierLabel(optionsJson: string | null): QualityValue | 'none' {
  try {
    return tierLabel(optionsJson ? JSON.parse(optionsJson) : null);
  } catch {
    return 'none';
  }
}
