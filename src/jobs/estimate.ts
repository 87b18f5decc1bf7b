import type { Db, JobKind } from '../store/schema.ts';
import { measuredSecondsPerAudioSecond, queuedAudioSeconds } from '../store/jobs.ts';

/**
 * Processing seconds per audio second before this deployment has history, per quality tier, from
 * the separation benchmark on a 2-core CPU (docs/separation.md); replaced by the measured average
 * of recent jobs as soon as there is one.
 */
const DEFAULT_FACTOR: Record<string, number> = { FAST: 0.35, BALANCED: 0.5, BEST: 0.6, DENOISE: 0.1 };

/**
 * Estimated seconds until a new job completes: the audio queued ahead of it (shared workers) plus
 * its own audio, times this deployment's measured processing speed, divided by worker concurrency.
 */
export async function estimateSeconds(
  db: Db,
  kinds: [JobKind, ...JobKind[]],
  durationSeconds: number,
  quality: string,
  concurrency: number,
): Promise<number> {
  const [factor, queued] = await Promise.all([processingFactor(db, kinds[0], quality), queuedAudioSeconds(db, kinds)]);
  return Math.max(1, Math.ceil((queued / concurrency + durationSeconds) * factor));
}

/** Processing seconds per audio second: measured on this deployment's recent jobs, else the tier's default. */
export async function processingFactor(db: Db, kind: JobKind, quality: string): Promise<number> {
  return (await measuredSecondsPerAudioSecond(db, kind)) ?? DEFAULT_FACTOR[quality] ?? 0.6;
}
