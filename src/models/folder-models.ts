import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CARD_FILE, MODEL_CARDS, specFromCard } from './model-card.ts';
import { getModelSpec, MODEL_REGISTRY, type ModelSpec } from './registry.ts';

/**
 * Models installed as folders beside the registry's: `<models>/<name>/model.onnx` and `model.json`
 * (model-card.ts), pulled with `stemforge models pull NAME --url --sha256 --card` or placed there.
 * Their entry is made from the card each time it is asked for, so a folder added, replaced or
 * removed is seen without a restart.
 */

/** A folder model's name: what a URL path segment, a file name and a metric label all take. */
export const FOLDER_MODEL_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** The card of `<modelsDir>/<name>/` is not a model card this service runs; the message says why. */
export class ModelCardError extends Error {}

/** The folder model `name`, or null when there is none; throws ModelCardError for a card it cannot read. */
export function readFolderModel(modelsDir: string, name: string): ModelSpec | null {
  if (!FOLDER_MODEL_NAME.test(name) || getModelSpec(name)) return null;
  const path = join(modelsDir, name, CARD_FILE);
  if (!existsSync(path)) return null;
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new ModelCardError(`${name}/${CARD_FILE} is not JSON (${(err as Error).message})`);
  }
  const card = MODEL_CARDS.safeParse(json);
  if (!card.success) {
    const issue = card.error.issues[0];
    throw new ModelCardError(`${name}/${CARD_FILE}: ${issue?.path.join('.') || 'card'}: ${issue?.message}`);
  }
  return specFromCard(name, card.data);
}

/** The registry's entry of `name`, or its folder model's. */
export function findModelSpec(name: string, modelsDir: string): ModelSpec | undefined {
  return getModelSpec(name) ?? readFolderModel(modelsDir, name) ?? undefined;
}

/** Every folder model in `modelsDir` (cards that cannot be read are reported, not listed). */
export function listFolderModels(
  modelsDir: string,
  onBadCard: (err: ModelCardError) => void = () => undefined,
): ModelSpec[] {
  let names: string[];
  try {
    names = readdirSync(modelsDir, { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
  } catch {
    return [];
  }
  const specs: ModelSpec[] = [];
  for (const name of names) {
    try {
      const spec = readFolderModel(modelsDir, name);
      if (spec) specs.push(spec);
    } catch (err) {
      if (err instanceof ModelCardError) onBadCard(err);
      else throw err;
    }
  }
  return specs;
}

/** The registry's models and the folder models, for listings. */
export function allModelSpecs(modelsDir: string): ModelSpec[] {
  return [...MODEL_REGISTRY, ...listFolderModels(modelsDir)];
}
