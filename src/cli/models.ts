import { loadConfig } from '../config.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { familyOf, MODEL_REGISTRY, type ModelSpec } from '../models/registry.ts';
import { resolveModel } from '../models/resolve.ts';
import { pullModel } from '../models/pull.ts';
import { pullFolderModel } from '../models/pull-folder.ts';
import { listFolderModels } from '../models/folder-models.ts';

const USAGE = 'stemforge models list | stemforge models pull NAME [--url URL] [--sha256 HEX] [--card model.json]';

/** What a separation model separates and serves, for the listing. */
function serving(m: ModelSpec): string {
  if (m.task !== 'separation') return '';
  const types = m.serves?.outputTypes.join(', ') || 'no output type';
  return `\n  family ${familyOf(m)}, stems ${m.stems?.join(', ')}; serves ${types}`;
}

/**
 * `stemforge models`: lists the registry's models and the folder models (`<models>/<name>/model.json`)
 * with install state, or downloads and verifies one (a folder model with `--card`).
 */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const config = loadConfig();
  if (sub === 'list') {
    parseCommandArgs(rest, {}, USAGE);
    const folders = listFolderModels(config.modelsDir, (err) => process.stderr.write(`skipped: ${err.message}\n`));
    for (const m of [...MODEL_REGISTRY, ...folders]) {
      const r = resolveModel(m.name, { modelsDir: config.modelsDir });
      const where = r ? `installed (${r.origin === 'npm' ? `npm package` : 'models dir'}: ${r.dir})` : 'not installed';
      process.stdout.write(`${m.name.padEnd(12)} ${where}\n  ${m.description}${serving(m)}\n  licence: ${m.license}\n`);
    }
    return 0;
  }
  if (sub === 'pull') {
    const { values, positionals } = parseCommandArgs(
      rest,
      { url: { type: 'string' }, sha256: { type: 'string' }, card: { type: 'string' } },
      USAGE,
    );
    const [name] = positionals;
    if (positionals.length !== 1 || name === undefined)
      throw new UsageError(`expected one model name\nusage: ${USAGE}`);
    if (values.sha256 && !/^[0-9a-fA-F]{64}$/.test(values.sha256))
      throw new UsageError('--sha256 must be 64 hex digits');
    let lastPct = -10;
    const common = {
      modelsDir: config.modelsDir,
      onProgress: (got: number, total: number | null) => {
        if (!total) return;
        const pct = Math.floor((got / total) * 100);
        if (pct >= lastPct + 10) {
          lastPct = pct;
          process.stderr.write(`downloading ${positionals[0]}: ${pct}%\n`);
        }
      },
    };
    let model: Awaited<ReturnType<typeof pullModel>>;
    if (values.card !== undefined) {
      if (!values.url || !values.sha256)
        throw new UsageError(`a model with --card needs --url and --sha256\nusage: ${USAGE}`);
      model = await pullFolderModel(name, { ...common, cardPath: values.card, url: values.url, sha256: values.sha256 });
    } else {
      model = await pullModel(name, { ...common, url: values.url, sha256: values.sha256 });
    }
    process.stdout.write(`${model.spec.name} installed and verified in ${model.dir}\n`);
    return 0;
  }
  parseCommandArgs(args, {}, USAGE); // answers --help
  throw new UsageError(`usage: ${USAGE}`);
}
