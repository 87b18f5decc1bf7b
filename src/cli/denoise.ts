import { existsSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import type { AudioFormat } from '../domain/vocabulary.ts';
import { loadConfig } from '../config.ts';
import { withChosenFfmpeg } from './tool-check.ts';
import { DenoiseEngine } from '../denoise/engine.ts';
import { DFN3_FILES, DFN3_SPEC } from '../denoise/model-files.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { ProgressBar } from './progress.ts';

const USAGE =
  'stemforge denoise <input> -o <output> [--format mp3|wav|flac] [--attenuation-limit DB] [--model-dir DIR]';
const FORMATS: readonly AudioFormat[] = ['mp3', 'wav', 'flac'];

/** `stemforge denoise`: cleans noise out of speech in one file, offline, with DeepFilterNet3. */
export async function run(args: string[]): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    args,
    {
      output: { type: 'string', short: 'o' },
      format: { type: 'string', short: 'f' },
      'model-dir': { type: 'string' },
      'attenuation-limit': { type: 'string' },
    },
    USAGE,
  );
  const [inputArg] = positionals;
  if (positionals.length !== 1 || inputArg === undefined || !values.output)
    throw new UsageError(`an input and -o <output> are required\nusage: ${USAGE}`);
  const input = resolve(inputArg);
  const output = resolve(values.output);
  const format = pickFormat(values.format, output);
  const attenuationLimitDb = pickLimit(values['attenuation-limit']);
  if (!existsSync(input) || !statSync(input).isFile()) throw new Error(`input not found: ${input}`);
  if (!existsSync(dirname(output))) throw new Error(`output folder does not exist: ${dirname(output)}`);

  const config = await withChosenFfmpeg(loadConfig());
  const modelDir = resolve(values['model-dir'] ?? join(config.modelsDir, DFN3_SPEC.name));
  const missing = Object.keys(DFN3_FILES).filter((f) => !existsSync(join(modelDir, f)));
  if (missing.length > 0) {
    throw new Error(
      `DeepFilterNet3 model not found in ${modelDir} (missing ${missing.join(', ')}): ` +
        'run `stemforge models pull dfn3`, or set STEMFORGE_MODELS_DIR to a folder holding dfn3/, or pass --model-dir',
    );
  }

  const engine = new DenoiseEngine({
    modelDir,
    executionProvider: config.onnx.executionProvider,
    threads: config.onnx.threads,
    tools: config.ffmpeg,
  });
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  const bar = new ProgressBar('denoise');
  try {
    await engine.ready();
    bar.update(0);
    const result = await engine.denoiseFile({
      inputPath: input,
      outputPath: output,
      format,
      attenuationLimitDb,
      signal: controller.signal,
      onProgress: (f) => bar.update(f),
    });
    bar.done(`wrote ${output} (${result.durationSeconds.toFixed(1)} s, ${format})`);
    return 0;
  } catch (err) {
    if ((err as Error).name === 'AbortError') {
      process.stderr.write('\ncancelled\n');
      return 130;
    }
    throw err;
  } finally {
    process.off('SIGINT', onSigint);
    await engine.close();
  }
}

/** `--attenuation-limit 12`: noise lowered by at most 12 dB; 0 or absent = no limit. */
function pickLimit(flag: string | undefined): number | undefined {
  if (flag === undefined) return undefined;
  const db = Number(flag);
  if (flag.trim() === '' || !Number.isFinite(db) || db < 0 || db > 100)
    throw new UsageError(`--attenuation-limit must be a number of dB from 0 to 100\nusage: ${USAGE}`);
  return db === 0 ? undefined : db;
}

function pickFormat(flag: string | undefined, output: string): AudioFormat {
  if (flag !== undefined) {
    const f = flag.toLowerCase() as AudioFormat;
    if (!FORMATS.includes(f)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}\nusage: ${USAGE}`);
    return f;
  }
  const ext = /\.([a-z0-9]+)$/i.exec(output)?.[1]?.toLowerCase() as AudioFormat | undefined;
  if (ext && FORMATS.includes(ext)) return ext;
  throw new UsageError(
    `cannot tell the format from '${output}': use an .mp3, .wav or .flac name or --format\nusage: ${USAGE}`,
  );
}
