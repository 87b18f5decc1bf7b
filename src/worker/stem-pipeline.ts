import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import type { Runtime } from '../runtime.ts';
import type { StageContext, StageOutcome } from './run-job.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../domain/job-state.ts';
import { AudioEncoder, AUDIO_CONTENT_TYPES, type AudioFormat } from '../audio/encode.ts';
import { decodeAudio } from '../audio/decode.ts';
import { jobInput, jobOptions } from '../jobs/present-stem-job.ts';
import { outputFileName, type StoredOutputs } from '../jobs/outputs.ts';
import { PermanentJobError } from './job-errors.ts';
import type { EngineStem } from './engines.ts';
import { analyzeStems } from './analyze-step.ts';
import { limitInputToBill } from './billed-input.ts';

/**
 * The separation stage shared by stem, video and track jobs: input from storage, HTDemucs
 * separation (progress 5-85 %), the optional vocal denoise, BPM/key analysis, outputs to storage.
 * `extra.fullAudio` lets video and track jobs add the extracted audio as `fullAudio`.
 */
export async function separateStage(
  rt: Runtime,
  ctx: StageContext,
  extra: { fullAudio?: boolean } = {},
): Promise<StageOutcome> {
  const { job, workDir, signal } = ctx;
  if (!job.source_key) throw new PermanentJobError('the job has no input file');
  const options = jobOptions(job);
  const input = jobInput(job);
  const format = options.outputFormat.toLowerCase() as AudioFormat;
  const stems = [...STEMS_BY_OUTPUT_TYPE[options.outputType]] as EngineStem[];
  const inputPath = join(workDir, 'input');
  await rt.store.downloadToFile(job.source_key, inputPath);
  await limitInputToBill(rt, job, inputPath, signal);
  ctx.progress(5);

  const engines = rt.engines();
  const outDir = join(workDir, 'out');
  // With denoiseVocals the vocal stem is separated losslessly first, then cleaned and encoded.
  const denoise = Boolean(options.denoiseVocals) && stems.includes('vocals');
  const separated = await engines.separate({
    inputPath,
    outDir,
    stems,
    format: denoise ? 'flac' : format,
    quality: options.quality,
    signal,
    onProgress: (f) => ctx.progress(5 + f * (denoise ? 65 : 80)),
  });
  const files: Record<string, string> = { ...separated.files } as Record<string, string>;
  if (denoise) {
    const cleaned = join(workDir, `vocals-clean.${format}`);
    await engines.denoise({
      inputPath: files.vocals!,
      outputPath: cleaned,
      format,
      signal,
      onProgress: (f) => ctx.progress(70 + f * 10),
    });
    files.vocals = cleaned;
    for (const stem of stems.filter((s) => s !== 'vocals')) {
      files[stem] = await transcode(rt, files[stem], join(workDir, `${stem}.${format}`), format);
    }
  }
  if (extra.fullAudio) files.fullAudio = await transcode(rt, inputPath, join(workDir, `fullAudio.${format}`), format);
  ctx.progress(86);

  const audioMetadata = await analyzeStems(rt, inputPath, files, ctx.job.id);
  ctx.progress(90);

  const outputs: StoredOutputs = {};
  for (const [stem, path] of Object.entries(files)) {
    if (!path) continue;
    if ((await stat(path)).size === 0) throw new Error(`the ${stem} output is empty`);
    const key = `jobs/${job.id}/${stem}.${format}`;
    await rt.store.putFile(key, path, { contentType: AUDIO_CONTENT_TYPES[format] });
    outputs[stem] = {
      key,
      fileName: outputFileName(input.fileName, stem, format),
      contentType: AUDIO_CONTENT_TYPES[format],
    };
  }
  return {
    type: 'completed',
    outputsJson: JSON.stringify(outputs),
    audioMetadataJson: audioMetadata ? JSON.stringify(audioMetadata) : null,
    chargeSeconds: job.credits_required ?? input.durationSeconds,
  };
}

async function transcode(rt: Runtime, from: string, to: string, format: AudioFormat): Promise<string> {
  const encoder = new AudioEncoder(to, format, { tools: rt.config.ffmpeg, limiter: false });
  try {
    for await (const chunk of decodeAudio(from, { tools: rt.config.ffmpeg })) await encoder.write(chunk);
    await encoder.end();
  } catch (err) {
    encoder.abort();
    throw err;
  }
  return to;
}
