import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import type { StageCompleted, StageContext, StageDeps } from './stage.ts';
import { AUDIO_CONTENT_TYPES } from '../audio/encode.ts';
import { audioFormatOf } from '../domain/vocabulary.ts';
import { outputFileName, type StoredOutputs } from '../jobs/outputs/outputs.ts';
import { DENOISED_OUTPUT } from '../jobs/present/present-denoise-job.ts';
import { limitInputToBill } from './billed-input.ts';
import { fetchMeasuredInput } from './measure-input.ts';

/**
 * The inference stage of a denoise job: input from storage, DeepFilterNet3 (off the event loop, in
 * the engine's thread; progress 5-95 %), the cleaned file (at the input's rate) to `jobs/<id>/denoised.<ext>`.
 * Claiming, retries, credit settlement and restart safety are the runner's (`run-job.ts`).
 */
export async function denoiseStage(deps: StageDeps, ctx: StageContext<'denoise'>): Promise<StageCompleted> {
  const { workDir, signal } = ctx;
  const { input, options } = ctx.job;
  const format = audioFormatOf(options.outputFormat);
  const inputPath = join(workDir, 'input');
  ctx.progress(1, 'downloading');
  // An upload PUT straight to S3 is measured and its credits settled here, before cleaning.
  const job = await fetchMeasuredInput(deps, ctx, inputPath);
  await limitInputToBill(deps, job, inputPath, signal);
  ctx.progress(5, 'cleaning');

  const outputPath = join(workDir, `denoised.${format}`);
  await deps.engines().denoise({
    inputPath,
    outputPath,
    format,
    attenuationLimitDb: options.attenuationLimitDb,
    signal,
    onProgress: (f) => ctx.progress(5 + f * 90, 'cleaning'),
  });
  if ((await stat(outputPath)).size === 0) throw new Error('the cleaned output is empty');
  ctx.progress(96, 'uploading');

  const key = `jobs/${job.id}/denoised.${format}`;
  const contentType = AUDIO_CONTENT_TYPES[format];
  await ctx.storeFile(key, outputPath, contentType);
  const outputs: StoredOutputs = {
    [DENOISED_OUTPUT]: { key, fileName: outputFileName(input.fileName, 'denoised', format), contentType },
  };
  return {
    type: 'completed',
    outputs,
    audioMetadata: null,
    chargeSeconds: job.credits_required ?? input.billedSeconds,
  };
}
