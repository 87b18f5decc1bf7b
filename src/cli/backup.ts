import { cp, mkdir, readdir, stat } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { loadConfig } from '../config.ts';
import { backupSqlite } from '../store/backup.ts';
import { parseCommandArgs, UsageError } from './args.ts';

const USAGE = 'stemforge backup <empty or new folder> [--no-models]';

/**
 * `stemforge backup DIR`: a consistent copy of an embedded instance while it runs, laid out as a
 * data folder (restore: stop the service and use the copy as STEMFORGE_DATA_DIR). The database is
 * copied first: every blob a copied row names existed then, so the blobs copied after it are all
 * there (retention may delete an expired output in between; its row says expired soon after).
 * The models folder goes too when it is the data folder's (`<data>/models`, where `models pull`
 * writes), unless `--no-models` leaves it out; the output says which.
 */
export async function run(args: string[]): Promise<void> {
  const { values, positionals } = parseCommandArgs(args, { 'no-models': { type: 'boolean' } }, USAGE);
  const [target, ...rest] = positionals;
  if (!target || rest.length > 0) throw new UsageError(`usage: ${USAGE}`);
  const config = loadConfig();
  if (!config.databaseUrl.startsWith('sqlite:') || config.storage.kind !== 'disk') {
    throw new Error(
      'backup copies an instance on SQLite and local disk; with PostgreSQL use pg_dump, with S3 the bucket\'s versioning or replication (docs/deploy.md, "Backups")',
    );
  }
  if ((await readdir(target).catch(() => [])).length > 0) throw new Error(`${target} is not empty`);
  await mkdir(target, { recursive: true });
  const database = join(target, 'stemforge.db');
  await backupSqlite(config.databaseUrl.slice('sqlite:'.length), database);
  // Only the stored objects and their metadata: tmp/ holds unfinished writes.
  for (const part of ['objects', 'meta']) {
    const from = join(config.storage.root, part);
    if (await exists(from)) await cp(from, join(target, 'blobs', part), { recursive: true, preserveTimestamps: true });
  }
  const secret = join(config.dataDir, 'signing-secret');
  if (!config.signingSecret && (await exists(secret))) await cp(secret, join(target, 'signing-secret'));
  const models = await copyModels(config.modelsDir, config.dataDir, target, values['no-models'] === true);
  const size = (await stat(database)).size;
  process.stdout.write(
    `backup written to ${target}: stemforge.db (${(size / 1e6).toFixed(1)} MB), blobs/, ` +
      `${config.signingSecret ? 'no signing secret (STEMFORGE_SIGNING_SECRET is set: keep it with your secrets)' : 'signing-secret'}, ${models}. ` +
      'Restore: stop the service and start it with STEMFORGE_DATA_DIR pointing at a copy of this folder.\n',
  );
}

/** Copies `<data>/models` into the backup (as `models/`); says what it did, for the closing line. */
async function copyModels(modelsDir: string, dataDir: string, target: string, skip: boolean): Promise<string> {
  const inside = relative(dataDir, modelsDir);
  if (inside.startsWith('..') || inside === '' || inside.startsWith('/')) {
    return 'no models (STEMFORGE_MODELS_DIR is outside the data folder: back it up with it)';
  }
  if (skip) return 'no models (--no-models: `models pull` fetches them again)';
  if (!(await exists(modelsDir))) return 'no models (none pulled)';
  await cp(modelsDir, join(target, inside), { recursive: true, preserveTimestamps: true });
  return `${inside}/`;
}

async function exists(path: string): Promise<boolean> {
  return stat(path).then(
    () => true,
    () => false,
  );
}
