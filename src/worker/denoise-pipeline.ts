import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import type { Runtime } from '../runtime.ts';
import type { StageContext, StageOutcome } from './run-job.ts';
import { AUDIO_CONTENT_TYPES, type AudioFormat } from '../audio/encode.ts';
import { outputFileName, type StoredOutputs } from '../jobs/outputs.ts';
import { DENOISED_OUTPUT, denoiseInput, denoiseOptions } from '../jobs/present-denoise-job.ts';
import { PermanentJobError } from './job-errors.ts';

/**
 * The inference stage of a denoise job: input from storage, DeepFilterNet3 (off the event loop, in
 * the engine's thread; progress 5-95 %), the cleaned file (at the input's rate) to `jobs/<id>/denoised.<ext>`.
 * Claiming, retries, credit settlement and restart safety are the runner's (`run-job.ts`).
 */
export async function denoiseStage(rt: Runtime, ctx: StageContext): Promise<StageOutcome> {
  const { job, workDir, signal } = ctx;
  if (!job.source_key) throw new PermanentJobError('the job has no input file');
  const input = denoiseInput(job);
  const options = denoiseOptions(job);
  const format = options.outputFormat.toLowerCase() as AudioFormat;
  const inputPath = join(workDir, 'input');
  await rt.store.downloadToFile(job.source_key, inputPath);
  ctx.progress(5);

  const outputPath = join(workDir, `denoised.${format}`);
  await rt.engines().denoise({
    inputPath,
    outputPath,
    format,
    attenuationLimitDb: options.attenuationLimitDb,
    signal,
    onProgress: (f) => ctx.progress(5 + f * 90),
  });
  if ((await stat(outputPath)).size === 0) throw new Error('the cleaned output is empty');
  ctx.progress(96);

  const key = `jobs/${job.id}/denoised.${format}`;
  const contentType = AUDIO_CONTENT_TYPES[format];
  await rt.store.putFile(key, outputPath, { contentType });
  const outputs: StoredOutputs = {
    [DENOISED_OUTPUT]: { key, fileName: outputFileName(input.fileName, 'denoised', format), contentType },
  };
  return {
    type: 'completed',
    outputsJson: JSON.stringify(outputs),
    audioMetadataJson: null,
    chargeSeconds: job.credits_required ?? input.durationSeconds,
  };
}
