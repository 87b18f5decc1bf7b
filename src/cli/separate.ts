import { basename, extname, resolve } from 'node:path';
import { existsSync } from 'node:fs';
import { loadConfig } from '../config.ts';
import { withChosenFfmpeg } from './tool-check.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { ProgressBar } from './progress.ts';
import { SeparationEngine } from '../separation/engine.ts';
import {
  type AudioFormat,
  type OutputTypeValue,
  QUALITIES,
  type QualityValue,
  STEMS_BY_OUTPUT_TYPE,
} from '../domain/vocabulary.ts';
import { separationModelFor } from '../models/registry.ts';
import { findModelSpec } from '../models/folder-models.ts';

/** `--model NAME` (an installed model that separates what `--stems` asks for), else the registry's choice. */
function modelFor(name: string | undefined, outputType: OutputTypeValue, modelsDir: string): string {
  if (name === undefined) return separationModelFor(outputType).name;
  const spec = findModelSpec(name, modelsDir);
  if (spec?.task !== 'separation')
    throw new UsageError(`no separation model '${name}' is installed (stemforge models list shows them)`);
  const stems = STEMS_BY_OUTPUT_TYPE[outputType];
  const missing = stems.filter((s) => s !== 'instrumental' && !spec.stems?.includes(s));
  if (missing.length > 0)
    throw new UsageError(
      `the '${name}' model does not separate ${missing.join(', ')} (it gives ${spec.stems?.join(', ')})`,
    );
  return spec.name;
}

const USAGE =
  'stemforge separate <input> -o <dir> [--stems vocals|instrumental|2|4|6] [--format mp3|wav|flac] [--quality fast|balanced|best] [--model NAME]';

/** The API's output types by their CLI names; the model registry says which model serves each (`6`: htdemucs_6s). */
const STEM_CHOICES: Record<string, OutputTypeValue> = {
  vocals: 'VOCALS',
  instrumental: 'INSTRUMENTAL',
  '2': 'BOTH',
  '4': 'FOUR_STEMS',
  '6': 'SIX_STEMS',
};

/** `stemforge separate`: splits a file into stems offline, no server needed. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      output: { type: 'string', short: 'o' },
      stems: { type: 'string', default: '2' },
      format: { type: 'string', default: 'mp3' },
      quality: { type: 'string', default: 'best' },
      model: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    USAGE,
  );
  if (values.help) {
    process.stdout.write(`usage: ${USAGE}\n`);
    return 0;
  }
  const [inputArg] = positionals;
  if (positionals.length !== 1 || inputArg === undefined || !values.output)
    throw new UsageError(`expected one input and -o <dir>\nusage: ${USAGE}`);
  const outputType = STEM_CHOICES[values.stems!];
  if (!outputType) throw new UsageError(`--stems must be vocals, instrumental, 2, 4 or 6\nusage: ${USAGE}`);
  const format = values.format!.toLowerCase();
  if (!['mp3', 'wav', 'flac'].includes(format))
    throw new UsageError(`--format must be mp3, wav or flac\nusage: ${USAGE}`);
  const quality = values.quality!.toUpperCase() as QualityValue;
  if (!QUALITIES.includes(quality)) throw new UsageError(`--quality must be fast, balanced or best\nusage: ${USAGE}`);
  const input = resolve(inputArg);
  if (!existsSync(input)) throw new Error(`input not found: ${input}`);

  const config = await withChosenFfmpeg(loadConfig());
  const model = modelFor(values.model, outputType, config.modelsDir);
  const engine = new SeparationEngine({
    modelsDir: config.modelsDir,
    cacheDir: config.cacheDir,
    model,
    executionProvider: config.onnx.executionProvider,
    threads: config.onnx.threads,
    tools: config.ffmpeg,
    // One job: the process loads only the model this tier runs.
    firstTier: quality,
  });
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const bar = new ProgressBar(`separating ${basename(input, extname(input))}`);
  try {
    const result = await engine.separateFile({
      model,
      inputPath: input,
      outDir: resolve(values.output),
      stems: [...STEMS_BY_OUTPUT_TYPE[outputType]],
      format: format as AudioFormat,
      quality,
      onProgress: (f) => bar.update(f),
      signal: controller.signal,
    });
    bar.done(`${result.durationSeconds.toFixed(1)} s of audio`);
    for (const [stem, path] of Object.entries(result.files)) process.stdout.write(`${stem}\t${path}\n`);
    return 0;
  } finally {
    process.off('SIGINT', onSigint);
    await engine.close();
  }
}
