import { join } from 'node:path';
import { stat } from 'node:fs/promises';
import type { StageCompleted, StageContext, StageDeps } from './stage.ts';
import { STEMS_BY_OUTPUT_TYPE } from '../domain/job-state.ts';
import { AudioEncoder, AUDIO_CONTENT_TYPES } from '../audio/encode.ts';
import { type AudioFormat, audioFormatOf, type StemName } from '../domain/vocabulary.ts';
import { decodeAudio } from '../audio/decode.ts';
import type { TypedJobOf } from '../jobs/read-job.ts';
import { ProgressSpan, segmentProgress } from './progress-span.ts';
import { outputFileName, type StoredOutputs } from '../jobs/outputs/outputs.ts';
import { plannedRuns } from '../separation/work-plan.ts';
import { findModelSpec } from '../models/folder-models.ts';
import { analyzeStems } from './analyze-step.ts';
import { storeJobAnalysis } from '../jobs/outputs/job-analysis.ts';
import { limitInputToBill } from './billed-input.ts';
import { fetchMeasuredInput } from './measure-input.ts';

/**
 * The separation stage shared by stem, video and track jobs: input from storage, HTDemucs
 * separation, the optional vocal denoise, BPM/key analysis, outputs to storage. Progress and its
 * phase (docs/api-compat.md): downloading 0-5, loading_model 5-15, separating 15-80 (per segment,
 * creeping within one), cleaning 70-80 (denoiseVocals), encoding 80-86, analysing 86-92,
 * uploading 92-99.
 * `extra.fullAudio` lets video and track jobs add the extracted audio as `fullAudio`.
 */
export async function separateStage(
  deps: StageDeps,
  ctx: StageContext<SeparationKind>,
  extra: { fullAudio?: boolean } = {},
): Promise<StageCompleted> {
  const { workDir, signal } = ctx;
  const { input, options } = ctx.job;
  const inputPath = join(workDir, 'input');
  ctx.progress(ctx.job.row.progress, 'downloading');
  // An upload PUT straight to S3 is measured and its credits settled here, before separation.
  const job = await fetchMeasuredInput(deps, ctx, inputPath);
  await limitInputToBill(deps, job, inputPath, signal);
  const span = new ProgressSpan(ctx.progress);
  try {
    return await separateInput(
      deps,
      { ...ctx, job: { ...ctx.job, row: job } },
      { inputPath, input, options, span },
      extra,
    );
  } finally {
    span.stop();
  }
}

async function separateInput(
  deps: StageDeps,
  ctx: StageContext<SeparationKind>,
  { inputPath, input, options, span }: SeparationInput,
  extra: { fullAudio?: boolean },
): Promise<StageCompleted> {
  const { workDir, signal } = ctx;
  const job = ctx.job.row;
  const format = audioFormatOf(options.outputFormat);
  const stems: StemName[] = [...STEMS_BY_OUTPUT_TYPE[options.outputType]];
  span.enter('loading_model', 5, 15, 5000);
  const engines = deps.engines();
  const outDir = join(workDir, 'out');
  // With denoiseVocals the vocal stem is separated losslessly first, then cleaned and encoded.
  const denoise = Boolean(options.denoiseVocals) && stems.includes('vocals');
  // The real-time factor counts from the first segment: a cold process's start and model load are not separation.
  let separationStarted: number | undefined;
  // The first report is where the run starts (after a checkpoint's segments); each later one follows
  // a segment kept in the checkpoint folder, which a run after a death resumes from.
  let startedAt: number | undefined;
  const separationProgress = segmentProgress(
    span,
    15,
    denoise ? 70 : 80,
    estimatedSegments(deps.config.modelsDir, job.duration_seconds, options),
  );
  const separated = await engines.separate({
    // The model chosen when the job was created, whatever the registry would pick now.
    model: options.model,
    inputPath,
    outDir,
    stems,
    format: denoise ? 'flac' : format,
    quality: options.quality,
    signal,
    checkpointDir: ctx.checkpointDir,
    onProgress: (fraction) => {
      separationStarted ??= performance.now();
      if (startedAt === undefined) {
        startedAt = fraction;
        if (fraction > 0) deps.log.info({ jobId: job.id, done: fraction }, 'separation resumes from its checkpoint');
      } else {
        ctx.keepWork(Math.round(fraction * SEPARATION_WORK_UNITS));
      }
      separationProgress(fraction);
    },
  });
  const audioSeconds = job.duration_seconds ?? input.billedSeconds;
  // A resumed run separated only part of the audio: its time says nothing of the real-time factor.
  if (audioSeconds > 0 && separationStarted !== undefined && !separated.resumedAt) {
    deps.metrics.separationRealTimeFactor.observe(
      { tier: options.quality, model: options.model },
      (performance.now() - separationStarted) / 1000 / audioSeconds,
    );
  }
  const files: Record<string, string> = { ...separated.files } as Record<string, string>;
  if (denoise) {
    span.enter('cleaning', 70, 80, 1000 * (job.duration_seconds ?? 60) * 0.05);
    const cleaned = join(workDir, `vocals-clean.${format}`);
    await engines.denoise({
      inputPath: files.vocals!,
      outputPath: cleaned,
      format,
      signal,
      onProgress: (f) => span.enter('cleaning', 70 + f * 10, 80, 1000),
    });
    files.vocals = cleaned;
    span.enter('encoding', 80, 86, 1000 * (job.duration_seconds ?? 60) * 0.02);
    for (const stem of stems.filter((s) => s !== 'vocals')) {
      const separatedFile = files[stem];
      if (separatedFile === undefined) throw new Error(`the separation wrote no ${stem} stem`);
      files[stem] = await transcode(deps, separatedFile, join(workDir, `${stem}.${format}`), format);
    }
  }
  if (extra.fullAudio) {
    span.enter('encoding', 80, 86, 1000 * (job.duration_seconds ?? 60) * 0.02);
    files.fullAudio = await transcode(deps, inputPath, join(workDir, `fullAudio.${format}`), format);
  }

  span.enter('analysing', 86, 92, 2000);
  const analysis = await analyzeStems(deps, inputPath, files, job.id);
  span.enter('uploading', 92, 99, 1000);

  const outputs: StoredOutputs = {};
  for (const [stem, path] of Object.entries(files)) {
    if (!path) continue;
    if ((await stat(path)).size === 0) throw new Error(`the ${stem} output is empty`);
    const key = `jobs/${job.id}/${stem}.${format}`;
    await ctx.storeFile(key, path, AUDIO_CONTENT_TYPES[format]);
    outputs[stem] = {
      key,
      fileName: outputFileName(input.fileName, stem, format),
      contentType: AUDIO_CONTENT_TYPES[format],
    };
  }
  if (analysis?.detail) await storeJobAnalysis(deps.blobs, job.id, analysis.detail);
  return {
    type: 'completed',
    outputs,
    audioMetadata: analysis?.metadata ?? null,
    chargeSeconds: job.credits_required ?? input.billedSeconds,
  };
}

/** The separation's kept work is counted in millionths of its segments (`StageContext.keepWork`). */
const SEPARATION_WORK_UNITS = 1_000_000;

interface SeparationInput {
  inputPath: string;
  input: SeparationJob['input'];
  options: SeparationJob['options'];
  span: ProgressSpan;
}

/** The kinds whose inference stage is a separation. */
type SeparationKind = 'stem' | 'video' | 'track';
type SeparationJob = TypedJobOf<SeparationKind>;

/**
 * Network runs a separation will take, for the progress before the first one reports (the job's
 * model's plan over the job's duration: HTDemucs' segments, MDX-Net's chunks).
 */
function estimatedSegments(
  modelsDir: string,
  durationSeconds: number | null,
  { model: name, quality }: Pick<SeparationJob['options'], 'model' | 'quality'>,
): number {
  const model = findModelSpec(name, modelsDir);
  // A model no longer described (an entry removed since the job was stored): its run fails alone.
  if (!model) return 1;
  return plannedRuns(model, Math.max(1, Math.round((durationSeconds ?? 60) * model.sampleRate)), quality);
}

async function transcode(
  deps: Pick<StageDeps, 'config'>,
  from: string,
  to: string,
  format: AudioFormat,
): Promise<string> {
  const encoder = new AudioEncoder(to, format, { tools: deps.config.ffmpeg, limiter: false });
  try {
    for await (const chunk of decodeAudio(from, { tools: deps.config.ffmpeg })) await encoder.write(chunk);
    await encoder.end();
  } catch (err) {
    encoder.abort();
    throw err;
  }
  return to;
}
