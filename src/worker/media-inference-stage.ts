import { creditsForDuration } from '../domain/credits.ts';
import type { StageCompleted, StageContext, StageDeps } from './stage.ts';
import { separateStage } from './separate-stage.ts';
import { PermanentJobError } from './job-errors.ts';

/**
 * The inference stage of video and track jobs: the shared separation with `fullAudio` added, then
 * the charge set to the duration the download stage measured. The runner's `chargeHold` settles it
 * against whatever was held at creation: the unused part of the hold is released; a cost beyond
 * the hold (a track created with the 240-credit estimate that turned out longer, or metadata that
 * understated a video) is taken from the balance as far as it reaches, and the rest is written off
 * with a ledger note rather than failing a job whose work is done.
 */
export async function mediaInferenceStage(
  deps: StageDeps,
  ctx: StageContext<'video' | 'track'>,
): Promise<StageCompleted> {
  const measured = ctx.job.row.duration_seconds;
  if (measured === null) throw new PermanentJobError('the job reached separation without a measured duration');
  const outcome = await separateStage(deps, ctx, { fullAudio: true });
  return { ...outcome, chargeSeconds: creditsForDuration(measured) };
}
