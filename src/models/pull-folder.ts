import { readFile } from 'node:fs/promises';
import { CARD_FILE, CARD_MODEL_FILE, MODEL_CARDS } from './model-card.ts';
import { FOLDER_MODEL_NAME } from './folder-models.ts';
import { PullError, type PullOptions, pullFiles } from './pull.ts';
import { getModelSpec } from './registry.ts';
import { resolveModel, type ResolvedModel } from './resolve.ts';

/**
 * Installs a folder model (folder-models.ts): `model.onnx` fetched from `url` and verified against
 * `sha256`, beside its card (`model.json`: the model's model-data entry plus `"family"`), read from
 * `cardPath` and checked before anything is downloaded. Into place like any pull: staged, verified,
 * then moved, so a failure never leaves half a model.
 */
export async function pullFolderModel(
  name: string,
  o: PullOptions & { cardPath: string; url: string; sha256: string },
): Promise<ResolvedModel> {
  if (!FOLDER_MODEL_NAME.test(name))
    throw new PullError(`'${name}' is not a model name: letters, digits, '.', '_' and '-', up to 64`);
  if (getModelSpec(name)) throw new PullError(`'${name}' is a model of the registry: pull it without --card`);
  let card: string;
  try {
    const parsed = MODEL_CARDS.safeParse(JSON.parse(await readFile(o.cardPath, 'utf8')));
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new PullError(`the card is not a model card: ${issue?.path.join('.') || 'card'}: ${issue?.message}`);
    }
    card = `${JSON.stringify(parsed.data, null, 2)}\n`;
  } catch (err) {
    if (err instanceof PullError) throw err;
    throw new PullError(`cannot read the card: ${(err as Error).message}`);
  }
  await pullFiles(name, { ...o, download: { file: CARD_MODEL_FILE, sha256: o.sha256 }, extra: { [CARD_FILE]: card } });
  const resolved = resolveModel(name, o);
  if (!resolved) throw new PullError(`model '${name}' was pulled but cannot be found in ${o.modelsDir}`);
  return resolved;
}
