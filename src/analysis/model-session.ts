import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import ort from 'onnxruntime-node';

/** A model file that ships with the repository (models/), with the sha256 its code pins. */
export interface ShippedModel {
  path: string;
  sha256: string;
  /** The constant that pins it, named when the file does not match. */
  pinnedAs: string;
}

// One session per thread and model file: an analysis thread lives for one analysis.
const sessions = new Map<string, Promise<ort.InferenceSession>>();

/**
 * The onnxruntime session of `path` (the shipped model, or a benchmark's candidate), opened once
 * per thread: CPU, one thread (the analysis models are small: one thread is as fast, and leaves the
 * others to separation). The shipped file must match its pinned sha256: a damaged or swapped file
 * would answer with confidence; the check costs well under 1 ms.
 */
export function modelSession(path: string, shipped: ShippedModel): Promise<ort.InferenceSession> {
  let s = sessions.get(path);
  if (!s) {
    s = open(path, shipped);
    sessions.set(path, s);
  }
  return s;
}

async function open(path: string, shipped: ShippedModel): Promise<ort.InferenceSession> {
  const bytes = await readFile(path);
  if (path === shipped.path && createHash('sha256').update(bytes).digest('hex') !== shipped.sha256)
    throw new Error(`${path} does not match its pinned sha256 (${shipped.pinnedAs})`);
  return ort.InferenceSession.create(bytes, {
    executionProviders: ['cpu'],
    intraOpNumThreads: 1,
    interOpNumThreads: 1,
  });
}
