import type { JobKind } from '../domain/job-kinds.ts';
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

/** The `tier` labels each kind's jobs carry: a separation's quality tier, `none` for voice cleaning. */
export const TIERS_BY_KIND: Record<JobKind, readonly (QualityValue | 'none')[]> = {
  stem: QUALITIES,
  video: QUALITIES,
  track: QUALITIES,
  denoise: ['none'],
};

/** The `outcome` labels of webhook deliveries (`src/webhooks/dispatcher.ts`). */
export const WEBHOOK_OUTCOMES = ['sent', 'failed', 'skipped'] as const;

/** The `reason` labels of released credits. */
export const RELEASE_REASONS = ['unused', 'failed', 'cancelled', 'estimate'] as const;
