import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readModelStructure, writeEditedModel } from '../onnx/model-file.ts';
import { sha256File, verifyFileCached } from '../models/verify.ts';
import { fuseAttention } from './attention-fusion.ts';

/** Bumped whenever the rewrite changes, so older prepared files are not reused. */
const REWRITE_VERSION = 'mha1';

export interface PreparedModel {
  /** The file to load: the rewritten model, or the original when nothing was rewritten. */
  path: string;
  /** Attention blocks replaced by the fused operator (0: the original is used). */
  fusedAttention: number;
}

/**
 * The model as the engine runs it: attention blocks fused (attention-fusion.ts) into a copy kept in
 * `<cacheDir>/.prepared/`, made once per model and machine (a second or two) and reused after. The
 * copy's checksum is recorded when it is written and checked, like any model file, when it is used;
 * a copy that fails the check is made again. `sha256` is the source's verified checksum; weights
 * without one are told apart by size and modification time.
 */
export async function prepareModel(modelPath: string, sha256: string | null, cacheDir: string | undefined): Promise<PreparedModel> {
  if (!cacheDir) return { path: modelPath, fusedAttention: 0 };
  const dir = join(cacheDir, '.prepared');
  const st = await stat(modelPath);
  const sourceKey = sha256 ? sha256.slice(0, 16) : `u${st.size.toString(16)}-${Math.round(st.mtimeMs).toString(16)}`;
  const stem = `${basename(modelPath, '.onnx')}-${sourceKey}-${REWRITE_VERSION}`;
  const path = join(dir, `${stem}.onnx`);
  const record = join(dir, `${stem}.json`);
  try {
    const saved = JSON.parse(await readFile(record, 'utf8')) as { sha256: string; fusedAttention: number };
    if (saved.fusedAttention === 0) return { path: modelPath, fusedAttention: 0 };
    await verifyFileCached(path, saved.sha256, cacheDir);
    return { path, fusedAttention: saved.fusedAttention };
  } catch {
    // Not prepared yet, or the copy no longer matches its record: make it (again).
  }
  const structure = await readModelStructure(modelPath);
  const { edit, fused } = fuseAttention(structure.nodes, { outputs: structure.graphOutputs, inputs: structure.graphInputs });
  await mkdir(dir, { recursive: true });
  if (fused > 0) await writeEditedModel(structure, edit, path);
  const written = fused > 0 ? await sha256File(path) : '';
  const tmp = `${record}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify({ source: modelPath, sha256: written, fusedAttention: fused }));
  await rename(tmp, record);
  return fused > 0 ? { path, fusedAttention: fused } : { path: modelPath, fusedAttention: 0 };
}
