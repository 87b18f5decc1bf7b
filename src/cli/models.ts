import { loadConfig } from '../config.ts';
import { parseCommandArgs, UsageError } from './args.ts';
import { MODEL_REGISTRY } from '../models/registry.ts';
import { resolveModel } from '../models/resolve.ts';
import { pullModel } from '../models/pull.ts';

const USAGE = 'stemforge models list | stemforge models pull NAME [--url URL] [--sha256 HEX]';

/** `stemforge models`: lists the registry with install state, or downloads and verifies a model. */
export async function run(args: string[]): Promise<number> {
  const [sub, ...rest] = args;
  const config = loadConfig();
  if (sub === 'list') {
    parseCommandArgs(rest, {}, USAGE);
    for (const m of MODEL_REGISTRY) {
      const r = resolveModel(m.name, { modelsDir: config.modelsDir });
      const where = r ? `installed (${r.origin === 'npm' ? `npm package` : 'models dir'}: ${r.dir})` : 'not installed';
      process.stdout.write(`${m.name.padEnd(12)} ${where}\n  ${m.description}\n  licence: ${m.license}\n`);
    }
    return 0;
  }
  if (sub === 'pull') {
    const { values, positionals } = parseCommandArgs(
      rest,
      { url: { type: 'string' }, sha256: { type: 'string' } },
      USAGE,
    );
    const [name] = positionals;
    if (positionals.length !== 1 || name === undefined)
      throw new UsageError(`expected one model name\nusage: ${USAGE}`);
    if (values.sha256 && !/^[0-9a-fA-F]{64}$/.test(values.sha256))
      throw new UsageError('--sha256 must be 64 hex digits');
    let lastPct = -10;
    const model = await pullModel(name, {
      modelsDir: config.modelsDir,
      url: values.url,
      sha256: values.sha256,
      onProgress: (got, total) => {
        if (!total) return;
        const pct = Math.floor((got / total) * 100);
        if (pct >= lastPct + 10) {
          lastPct = pct;
          process.stderr.write(`downloading ${positionals[0]}: ${pct}%\n`);
        }
      },
    });
    process.stdout.write(`${model.spec.name} installed and verified in ${model.dir}\n`);
    return 0;
  }
  parseCommandArgs(args, {}, USAGE); // answers --help
  throw new UsageError(`usage: ${USAGE}`);
}
