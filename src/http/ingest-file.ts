import { createWriteStream } from 'node:fs';
import { mkdir, rm, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { Transform, type Readable } from 'node:stream';
import { ApiError } from '../domain/errors.ts';
import { probeAudio, UnsupportedAudioError } from '../audio/probe.ts';
import { completeUpload, type UploadRow } from '../store/uploads.ts';
import { newId } from '../domain/ids.ts';
import type { Runtime } from '../runtime.ts';

class TooLarge extends Error {}

/**
 * Receives an upload body: streams it to a temporary file (never into memory), stopping at the
 * size limit; probes it with ffprobe (content decides, not the name); then moves it into blob
 * storage and marks the upload complete. Anything rejected leaves nothing behind.
 */
export async function ingestFile(rt: Runtime, upload: UploadRow, body: Readable) {
  const maxBytes = rt.config.limits.maxFileSizeBytes;
  const tmpDir = join(rt.config.dataDir, 'tmp');
  await mkdir(tmpDir, { recursive: true });
  const tmp = join(tmpDir, `${newId('in')}.part`);
  let received = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      received += chunk.length;
      if (received > maxBytes) done(new TooLarge());
      else done(null, chunk);
    },
  });
  try {
    try {
      await pipeline(body, counter, createWriteStream(tmp));
    } catch (err) {
      if (err instanceof TooLarge) throw tooLarge(maxBytes);
      throw err;
    }
    const size = (await stat(tmp)).size;
    if (size === 0) throw new ApiError('UNSUPPORTED_FORMAT', 'The uploaded file is empty.');
    let probe: Awaited<ReturnType<typeof probeAudio>>;
    try {
      probe = await probeAudio(tmp, rt.config.ffmpeg);
    } catch (err) {
      if (err instanceof UnsupportedAudioError)
        throw new ApiError('UNSUPPORTED_FORMAT', `The file is not supported audio: ${err.message}.`);
      throw err;
    }
    await rt.store.putFile(upload.storage_key, tmp, { contentType: upload.content_type });
    if (!(await completeUpload(rt.db, upload.id, size, probe.durationSeconds))) {
      throw new ApiError('UPLOAD_ALREADY_COMPLETED');
    }
    return {
      uploadKey: upload.id,
      fileName: upload.file_name,
      fileSizeBytes: size,
      contentType: upload.content_type,
      durationSeconds: Math.round(probe.durationSeconds * 1000) / 1000,
      expiresAt: upload.expires_at,
    };
  } finally {
    await rm(tmp, { force: true });
  }
}

export function tooLarge(maxBytes: number): ApiError {
  return new ApiError(
    'FILE_TOO_LARGE',
    `The file exceeds the maximum file size of ${Math.floor(maxBytes / (1024 * 1024))} MB (${maxBytes} bytes).`,
    {
      maxFileSizeBytes: maxBytes,
    },
  );
}
