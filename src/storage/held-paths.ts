/**
 * What this process is writing now in the temporary places the orphan sweep visits (work folders,
 * `tmp/*.part`, the disk store's `blobs/tmp/`, S3 multipart uploads by key): the sweep never removes
 * one of these, whatever its age. Process-wide on purpose: every runtime of this process shares the
 * data folder, and only a live process can hold anything.
 */
const held = new Map<string, number>();

/** Marks `name` (a path, or `s3://bucket/key`) as in use until the returned function is called. */
export function holdPath(name: string): () => void {
  held.set(name, (held.get(name) ?? 0) + 1);
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const n = (held.get(name) ?? 1) - 1;
    if (n > 0) held.set(name, n);
    else held.delete(name);
  };
}

/** Whether this process holds `name` now. */
export function isPathHeld(name: string): boolean {
  return held.has(name);
}
