import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { ApiError } from '../domain/errors.ts';
import { newId } from '../domain/ids.ts';
import type { UploadDeps } from './deps.ts';
import { holdPath } from '../storage/held-paths.ts';

class TooLarge extends Error {}

/** The folder of in-flight request bodies (`in_*.part`) and fetched sources (`src_*.part`). */
export function tempDir(deps: Pick<UploadDeps, 'config'>): string {
  return join(deps.config.dataDir, 'tmp');
}

/**
 * Streams a request body to a private temporary file (never into memory), stopping at the size
 * limit. The caller owns the file and removes it (`received.discard()`); a process killed meanwhile
 * leaves it to the start-up sweep (`src/startup-sweep.ts`).
 */
export async function receiveToTemp(
  deps: Pick<UploadDeps, 'config'>,
  body: Readable,
): Promise<{ path: string; size: number; discard(): Promise<void> }> {
  const maxBytes = deps.config.limits.maxFileSizeBytes;
  await mkdir(tempDir(deps), { recursive: true });
  const path = join(tempDir(deps), `${newId('in')}.part`);
  // Held until discarded, so the periodic orphan sweep never takes a body still in use.
  const release = holdPath(path);
  const discard = () => rm(path, { force: true }).finally(release);
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > maxBytes) done(new TooLarge());
      else done(null, chunk);
    },
  });
  try {
    await pipeline(body, counter, createWriteStream(path));
    const size = (await stat(path)).size;
    if (size === 0) throw new ApiError('UNSUPPORTED_FORMAT', 'The uploaded file is empty.');
    return { path, size, discard };
  } catch (err) {
    await discard();
    if (err instanceof TooLarge) throw tooLarge(maxBytes);
    throw err;
  }
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'FILE_TOO_LARGE',
    `The file exceeds the maximum file size of ${Math.floor(maxBytes / (1024 * 1024))} MB (${maxBytes} bytes).`,
    { maxFileSizeBytes: maxBytes },
  );
}
