import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readModelStructure, writeEditedModel } from '../onnx/model-file.ts';
import { dropDeadNodes } from '../onnx/graph-edit.ts';
import { sha256File, verifyFileCached } from '../models/verify.ts';
import { fuseAttention } from './attention-fusion.ts';

/** Bumped whenever the rewrite changes, so older prepared files are not reused. */
const REWRITE_VERSION = 'r1';

/** What the rewrite changed in a graph. */
export interface GraphRewrites {
  /** Attention blocks fused into MultiHeadAttention (attention-fusion.ts). */
  attention: number;
}

export interface PreparedModel {
  /** The file to load: the rewritten model, or the original when nothing was rewritten. */
  path: string;
  rewrites: GraphRewrites;
}

export const NO_REWRITES: GraphRewrites = { attention: 0 };

/**
 * The model as the engine runs it: a copy whose attention blocks run fused (attention-fusion.ts),
 * kept in `<cacheDir>/.prepared/`, made once per model and machine (a second or two) and reused.
 * The copy's checksum is recorded when it is written and checked, like any model file, when it is
 * used; a copy that fails the check is made again.
 * `sha256` is the source's verified checksum; weights without one are told apart by size and
 * modification time. A graph without that attention is used as it is.
 */
export async function prepareModel(
  modelPath: string,
  sha256: string | null,
  cacheDir: string | undefined,
): Promise<PreparedModel> {
  if (!cacheDir) return { path: modelPath, rewrites: NO_REWRITES };
  const dir = join(cacheDir, '.prepared');
  const st = await stat(modelPath);
  const sourceKey = sha256 ? sha256.slice(0, 16) : `u${st.size.toString(16)}-${Math.round(st.mtimeMs).toString(16)}`;
  const stem = `${basename(modelPath, '.onnx')}-${sourceKey}-${REWRITE_VERSION}`;
  const path = join(dir, `${stem}.onnx`);
  const record = join(dir, `${stem}.json`);
  try {
    const saved = JSON.parse(await readFile(record, 'utf8')) as { sha256: string; rewrites: GraphRewrites };
    if (!saved.sha256) return { path: modelPath, rewrites: NO_REWRITES };
    await verifyFileCached(path, saved.sha256, cacheDir);
    return { path, rewrites: saved.rewrites };
  } catch {
    // Not prepared yet, or the copy no longer matches its record: make it (again).
  }
  const structure = await readModelStructure(modelPath);
  const { edit, fused } = fuseAttention(structure.nodes, structure.graphInputs);
  dropDeadNodes(structure.nodes, edit, structure.graphOutputs);
  const rewrites = { attention: fused };
  const changed = fused > 0;
  await mkdir(dir, { recursive: true });
  if (changed) await writeEditedModel(structure, edit, path);
  const written = changed ? await sha256File(path) : '';
  const tmp = `${record}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ source: modelPath, sha256: written, rewrites }));
  await rename(tmp, record);
  return changed ? { path, rewrites } : { path: modelPath, rewrites: NO_REWRITES };
}
