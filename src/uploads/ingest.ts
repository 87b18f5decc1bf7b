import type { Readable } from 'node:stream';
import type { UploadRow } from '../store/uploads.ts';
import type { UploadDeps } from './deps.ts';
import { receiveToTemp } from './receive.ts';
import { measureAudioOrReject } from './measure.ts';
import { publishUpload } from './publish.ts';

/**
 * Receives an upload body for a pending upload row: the body to a private temp file (size cap),
 * ffprobe and a measuring decode (`measure.ts`: the decoded length is what jobs will bill), then
 * the atomic publish (`publish.ts`). Anything refused leaves nothing behind. Returns the
 * `UploadedFile` fields.
 */
export async function ingestUpload(deps: UploadDeps, upload: UploadRow, body: Readable) {
  const received = await receiveToTemp(deps, body);
  try {
    const measured = await measureAudioOrReject(deps, received.path);
    await publishUpload(deps, upload, { ...received, durationSeconds: measured.durationSeconds });
    return {
      uploadKey: upload.id,
      fileName: upload.file_name,
      fileSizeBytes: received.size,
      contentType: upload.content_type,
      durationSeconds: Math.round(measured.durationSeconds * 1000) / 1000,
      expiresAt: upload.expires_at,
    };
  } finally {
    await received.discard();
  }
}
