import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { readModelStructure, writeEditedModel } from '../onnx/model-file.ts';
import { dropDeadNodes } from '../onnx/graph-edit.ts';
import { hashAndRemember, verifyFileCached } from '../models/verify.ts';
import { fuseAttention } from './attention-fusion.ts';
import { splitAtDecoders } from './model-split.ts';
import { quantizeMatMuls } from './matmul-quantization.ts';
import { splitAttentionRows } from './attention-rows.ts';
import type { ExecutionProvider } from './session-options.ts';

/** Bumped whenever the rewrite changes, so older prepared files are not reused. */
const REWRITE_VERSION = 'r2';

/** What the rewrite changed in a graph. */
export interface GraphRewrites {
  /** Attention blocks fused into MultiHeadAttention (attention-fusion.ts). */
  attention: number;
  /** Sessions the graph runs as: 2 when split where the decoders start (model-split.ts), else 1. */
  parts: number;
  /** MatMuls whose weights run as int8 (matmul-quantization.ts; the FAST tier's copy only). */
  int8MatMuls: number;
  /** Attentions whose query rows are split so no Softmax exceeds 128 MiB (attention-rows.ts; the WebGPU copy only). */
  attentionRows?: number;
}

export interface PreparedModel {
  /** The file to load: the rewritten model, or the original when nothing was rewritten. */
  path: string;
  /** The files to run one after the other (each one's outputs feed the next): `[path]` when not split. */
  parts: string[];
  rewrites: GraphRewrites;
}

export const NO_REWRITES: GraphRewrites = { attention: 0, parts: 1, int8MatMuls: 0 };

export interface PrepareOptions {
  /** The FAST tier's copy: MatMul weights as int8 (matmul-quantization.ts). */
  int8MatMuls?: boolean;
  /**
   * Where it runs. WebGPU gets a copy of its own: onnxruntime's WebGPU Softmax is wrong past
   * 128 MiB and its fused attention imprecise (docs/separation.md, "WebGPU: the divergence"), so
   * the attentions stay unfused and those whose scores exceed 128 MiB are split by rows; and it runs
   * whole (split in parts, the skip connections would cross from the GPU to the host and back).
   */
  executionProvider?: ExecutionProvider;
}

interface SavedRecord {
  sha256: string;
  rewrites: GraphRewrites;
  parts: { file: string; sha256: string }[];
}

/**
 * The model as the engine runs it: a copy whose attention blocks run fused (attention-fusion.ts),
 * and that copy split in two parts run one after the other where the decoders start
 * (model-split.ts: the same outputs with 0.7 GB less peak memory), kept in `<cacheDir>/.prepared/`,
 * made once per model and machine (a few seconds) and reused.
 * On WebGPU the copy is another one (`PrepareOptions.executionProvider`).
 * The copies' checksums are recorded when it is written and checked, like any model file, when it is
 * used; a copy that fails the check is made again (all of them).
 * `sha256` is the source's verified checksum; weights without one are told apart by size and
 * modification time. A graph without that attention is used as it is.
 */
export async function prepareModel(
  modelPath: string,
  sha256: string | null,
  cacheDir: string | undefined,
  options: PrepareOptions = {},
): Promise<PreparedModel> {
  const asIs = { path: modelPath, parts: [modelPath], rewrites: NO_REWRITES };
  if (!cacheDir) return asIs;
  const dir = join(cacheDir, '.prepared');
  const st = await stat(modelPath);
  const sourceKey = sha256 ? sha256.slice(0, 16) : `u${st.size.toString(16)}-${Math.round(st.mtimeMs).toString(16)}`;
  const webgpu = options.executionProvider === 'webgpu';
  const variant = webgpu ? '-webgpu' : options.int8MatMuls ? '-int8' : '';
  const stem = `${basename(modelPath, '.onnx')}-${sourceKey}-${REWRITE_VERSION}${variant}`;
  const path = join(dir, `${stem}.onnx`);
  const record = join(dir, `${stem}.json`);
  try {
    const saved = JSON.parse(await readFile(record, 'utf8')) as SavedRecord;
    if (!saved.sha256) return asIs;
    await verifyFileCached(path, saved.sha256, cacheDir);
    for (const p of saved.parts) await verifyFileCached(join(dir, p.file), p.sha256, cacheDir);
    const parts = saved.parts.map((p) => join(dir, p.file));
    return { path, parts: parts.length > 0 ? parts : [path], rewrites: saved.rewrites };
  } catch {
    // Not prepared yet, or the copy no longer matches its record: make it (again).
  }
  const structure = await readModelStructure(modelPath);
  const rows = webgpu ? splitAttentionRows(structure.nodes) : undefined;
  const { edit, fused } = rows ? { edit: rows.edit, fused: 0 } : fuseAttention(structure.nodes, structure.graphInputs);
  dropDeadNodes(structure.nodes, edit, structure.graphOutputs);
  const changed = fused > 0 || (rows?.split ?? 0) > 0;
  await mkdir(dir, { recursive: true });
  let int8MatMuls = 0;
  if (changed && options.int8MatMuls && !webgpu) {
    // Quantized from the float copy (made here, or reused: the other tiers load it first), not
    // fused and written a second time.
    const float = await prepareModel(modelPath, sha256, cacheDir);
    int8MatMuls = await quantizeMatMuls(float.path, path);
    if (int8MatMuls === 0) await writeEditedModel(structure, edit, path);
  } else if (changed) await writeEditedModel(structure, edit, path);
  const written = changed ? await hashAndRemember(path, cacheDir) : '';
  const partFiles = [`${stem}-part1.onnx`, `${stem}-part2.onnx`];
  const split = changed && !webgpu && (await splitAtDecoders(path, join(dir, partFiles[0]!), join(dir, partFiles[1]!)));
  // One after the other: each records itself in the models directory's cache of verified files.
  const parts: SavedRecord['parts'] = [];
  if (split)
    for (const file of partFiles) parts.push({ file, sha256: await hashAndRemember(join(dir, file), cacheDir) });
  const rewrites: GraphRewrites = {
    attention: fused,
    parts: split ? 2 : 1,
    int8MatMuls,
    ...(rows ? { attentionRows: rows.split } : {}),
  };
  const tmp = `${record}.${process.pid}.tmp`;
  const saved: SavedRecord & { source: string } = { source: modelPath, sha256: written, rewrites, parts };
  await writeFile(tmp, JSON.stringify(saved));
  await rename(tmp, record);
  if (!changed) return asIs;
  return { path, parts: split ? parts.map((p) => join(dir, p.file)) : [path], rewrites };
}
