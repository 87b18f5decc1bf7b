import { stageTypes } from '../domain/job-kinds.ts';
import type { StageHandlers } from './stage.ts';
import { separateStage } from './separate-stage.ts';
import { downloadStage, TRACK_DOWNLOAD, VIDEO_DOWNLOAD } from './download-stage.ts';
import { mediaInferenceStage } from './media-inference-stage.ts';
import { denoiseStage } from './denoise-stage.ts';

/** The handler of every (kind, stage) in the job catalog: complete by type, checked again at start. */
export const STAGE_HANDLERS: StageHandlers = {
  'stem:inference': (deps, ctx) => separateStage(deps, ctx),
  'video:download': downloadStage(VIDEO_DOWNLOAD),
  'video:inference': mediaInferenceStage,
  'track:download': downloadStage(TRACK_DOWNLOAD),
  'track:inference': mediaInferenceStage,
  'denoise:inference': denoiseStage,
};

/**
 * Start-up refuses a catalog stage without a handler: the type says the map is complete, but a
 * kind added where the compiler does not look (a cast, a JavaScript caller) must not reach a job.
 */
export function assertStageHandlers(handlers: Partial<Record<string, unknown>>): void {
  const missing = stageTypes().filter((t) => typeof handlers[t] !== 'function');
  if (missing.length) throw new Error(`no worker handler for ${missing.join(', ')}`);
}
