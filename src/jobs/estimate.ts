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
  const [measured, queued] = await Promise.all([
    measuredSecondsPerAudioSecond(db, kinds[0]),
    queuedAudioSeconds(db, kinds),
  ]);
  const factor = measured ?? DEFAULT_FACTOR[quality] ?? 0.6;
  return Math.max(1, Math.ceil((queued / concurrency + durationSeconds) * factor));
}
