import type { z } from 'zod';
import type { UploadGrantRequest } from '../contract/upload.ts';
import { ApiError } from '../domain/errors.ts';
import {
  defaultContentType,
  extensionOf,
  INPUT_FORMATS,
  isAcceptableContentType,
  sanitizeFileName,
} from '../domain/formats.ts';
import { newId } from '../domain/ids.ts';
import { findUpload, insertUpload, type UploadRow } from '../store/uploads.ts';
import type { UploadDeps } from './deps.ts';
import { DIRECT_UPLOAD_OBJECT, directUploads } from './direct.ts';
import { tooLarge } from './receive.ts';

/** Upload URLs live 15 minutes (contract). */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

/** The fields an upload URL's signature covers: the method, the upload, the expiry and the content type. */
export function uploadSignatureFields(uploadId: string, exp: string, contentType: string): Record<string, string> {
  return { method: 'PUT', upload: uploadId, exp, ct: contentType };
}

/** Where an upload's blobs live; each PUT stores under its own key below it (see `publish.ts`). */
export function uploadPrefix(row: Pick<UploadRow, 'account_id' | 'id'>): string {
  return `uploads/${row.account_id}/${row.id}/`;
}

/**
 * The one place an upload row is built (signed-URL grants and one-request multipart uploads): the
 * client's name sanitised, its extension one of the input formats, the content type audio. The
 * row starts `pending`; only a received, measured file makes it `uploaded` (`publish.ts`).
 */
export function newUploadRow(
  accountId: string,
  clientFileName: string,
  opts: { contentType?: string; expiresAt: Date; now?: Date },
): UploadRow {
  const fileName = sanitizeFileName(clientFileName);
  const ext = extensionOf(fileName);
  if (!INPUT_FORMATS[ext]) {
    throw new ApiError(
      'UNSUPPORTED_FORMAT',
      `Files ending in '.${ext || '(none)'}' are not supported; accepted: ${Object.keys(INPUT_FORMATS).join(', ')}.`,
    );
  }
  const contentType = opts.contentType ?? defaultContentType(fileName)!;
  if (!isAcceptableContentType(contentType)) {
    throw new ApiError('UNSUPPORTED_FORMAT', `Content type '${contentType}' is not an audio type.`);
  }
  const id = newId('upl');
  const row: UploadRow = {
    id,
    account_id: accountId,
    file_name: fileName,
    content_type: contentType,
    storage_key: '',
    status: 'pending',
    size_bytes: null,
    duration_seconds: null,
    created_at: (opts.now ?? new Date()).toISOString(),
    expires_at: opts.expiresAt.toISOString(),
    uploaded_at: null,
  };
  // Until a PUT publishes its own object, the row names the prefix's `source` (never written).
  row.storage_key = `${uploadPrefix(row)}source`;
  return row;
}

/**
 * POST /upload: an upload row and the URL to PUT the file to, valid for 15 minutes. Embedded, or
 * without `fileSizeBytes`: this API's signed route, which probes and measures the file as it
 * arrives and stops reading past the size limit. Scale-out on S3 (`directUploads`) with
 * `fileSizeBytes`: a presigned PUT straight to the bucket with the Content-Type and that exact size
 * signed (S3 refuses any other), so what lands in the bucket is bounded; the row is `direct`, and
 * each job made from it is probed and measured by the worker before anything is charged or
 * separated (`src/worker/measure-input.ts`). A presigned PUT without a signed size would let a
 * client store a file of any size for as long as the grant's retention.
 */
export async function grantUpload(
  deps: Pick<UploadDeps, 'config' | 'db' | 'signer' | 'blobs'>,
  accountId: string,
  body: z.infer<typeof UploadGrantRequest>,
) {
  const maxBytes = deps.config.limits.maxFileSizeBytes;
  if (body.fileSizeBytes !== undefined && body.fileSizeBytes > maxBytes) throw tooLarge(maxBytes);
  const now = Date.now();
  const row = newUploadRow(accountId, body.filename, {
    contentType: body.contentType,
    expiresAt: new Date(now + UPLOAD_URL_TTL_SECONDS * 1000),
    now: new Date(now),
  });
  const direct = directUploads(deps) && body.fileSizeBytes !== undefined;
  if (direct) {
    row.status = 'direct';
    row.storage_key = `${uploadPrefix(row)}${DIRECT_UPLOAD_OBJECT}`;
  }
  await insertUpload(deps.db, row);
  let uploadUrl: string;
  if (direct && deps.blobs.signedUploadUrl) {
    const signed = await deps.blobs.signedUploadUrl(row.storage_key, {
      contentType: row.content_type,
      contentLength: body.fileSizeBytes,
      expiresInSeconds: UPLOAD_URL_TTL_SECONDS,
    });
    uploadUrl = signed.url;
  } else {
    const exp = String(Math.floor(now / 1000) + UPLOAD_URL_TTL_SECONDS);
    const sig = deps.signer.sign(uploadSignatureFields(row.id, exp, row.content_type));
    uploadUrl = `${deps.config.publicUrl}/v1/uploads/${row.id}?exp=${exp}&sig=${sig}`;
  }
  const maxMb = Math.floor(maxBytes / (1024 * 1024));
  const sized = body.fileSizeBytes === undefined ? '' : ` and exactly ${body.fileSizeBytes} bytes`;
  return {
    uploadUrl,
    uploadKey: row.id,
    expiresAt: row.expires_at,
    maxFileSizeBytes: maxBytes,
    maxFileSizeMb: maxMb,
    contentType: row.content_type,
    instructions: {
      step1: `PUT the raw file bytes to uploadUrl with the header "Content-Type: ${row.content_type}"${sized} before ${row.expires_at}.`,
      step2: 'Create a job with POST /v1/jobs and {"uploadKey": "<uploadKey>"}.',
      note: direct
        ? `Files up to ${maxMb} MB; the file goes straight to storage and is decoded to measure its length (what is billed) when the job starts: a file that is not readable audio fails its job and the credits held are released.`
        : `Files up to ${maxMb} MB; the file is decoded to measure its length (what is billed) and must be readable audio.`,
    },
  };
}

/**
 * Checks a signed upload URL: the signature over (method, upload, expiry, granted content type),
 * the expiry, and that no file was published yet. Returns the pending upload row.
 */
export async function verifyUploadUrl(
  deps: Pick<UploadDeps, 'config' | 'db' | 'signer'>,
  uploadId: string,
  exp: string,
  sig: string,
  now = Date.now(),
): Promise<UploadRow> {
  const upload = await findUpload(deps.db, uploadId);
  const fields = uploadSignatureFields(uploadId, exp, upload?.content_type ?? '');
  if (!upload || !deps.signer.verify(fields, sig)) throw new ApiError('INVALID_SIGNATURE');
  if (Number(exp) * 1000 < now) throw new ApiError('UPLOAD_URL_EXPIRED');
  if (upload.status !== 'pending') throw new ApiError('UPLOAD_ALREADY_COMPLETED');
  return upload;
}
