import type { z } from 'zod';
import { defineRoute } from './route.ts';
import { UploadGrant, UploadGrantRequest } from '../contract/upload.ts';
import { ApiError } from '../domain/errors.ts';
import {
  defaultContentType,
  extensionOf,
  INPUT_FORMATS,
  isAcceptableContentType,
  sanitizeFileName,
} from '../domain/formats.ts';
import { newId } from '../domain/ids.ts';
import { insertUpload } from '../store/uploads.ts';
import { uploadSignatureFields } from './upload-put.ts';
import type { Runtime } from '../runtime.ts';

/** Upload URLs live 15 minutes (contract). */
export const UPLOAD_URL_TTL_SECONDS = 15 * 60;

export function uploadGrantRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/upload',
      summary: 'Get a signed URL to upload an audio file',
      description:
        'PUT the raw file to `uploadUrl` with the granted Content-Type within 15 minutes, then pass `uploadKey` to a job.',
      tag: 'Uploads',
      auth: 'apiKey',
      body: UploadGrantRequest,
      status: 200,
      response: UploadGrant,
      errors: ['VALIDATION_ERROR', 'UNSUPPORTED_FORMAT'],
      handler: ({ body, auth }) => grantUpload(rt, auth.accountId, body),
    }),
  ];
}

/**
 * The upload grant of POST /v1/upload (and the dashboard's POST /uploads): a pending upload row and
 * a signed PUT URL for it.
 */
export async function grantUpload(rt: Runtime, accountId: string, body: z.infer<typeof UploadGrantRequest>) {
  const fileName = sanitizeFileName(body.filename);
  const ext = extensionOf(fileName);
  if (!INPUT_FORMATS[ext]) {
    throw new ApiError(
      'UNSUPPORTED_FORMAT',
      `Files ending in '.${ext || '(none)'}' are not supported; accepted: ${Object.keys(INPUT_FORMATS).join(', ')}.`,
    );
  }
  const contentType = body.contentType ?? defaultContentType(fileName)!;
  if (!isAcceptableContentType(contentType)) {
    throw new ApiError('UNSUPPORTED_FORMAT', `Content type '${contentType}' is not an audio type.`);
  }
  const id = newId('upl');
  const now = Date.now();
  const expiresAt = new Date(now + UPLOAD_URL_TTL_SECONDS * 1000).toISOString();
  await insertUpload(rt.db, {
    id,
    account_id: accountId,
    file_name: fileName,
    content_type: contentType,
    storage_key: `uploads/${accountId}/${id}/source`,
    status: 'pending',
    size_bytes: null,
    duration_seconds: null,
    created_at: new Date(now).toISOString(),
    expires_at: expiresAt,
    uploaded_at: null,
  });
  const exp = String(Math.floor(now / 1000) + UPLOAD_URL_TTL_SECONDS);
  const sig = rt.signer.sign(uploadSignatureFields(id, exp, contentType));
  const maxBytes = rt.config.limits.maxFileSizeBytes;
  return {
    uploadUrl: `${rt.config.publicUrl}/v1/uploads/${id}?exp=${exp}&sig=${sig}`,
    uploadKey: id,
    expiresAt,
    maxFileSizeBytes: maxBytes,
    maxFileSizeMb: Math.floor(maxBytes / (1024 * 1024)),
    contentType,
    instructions: {
      step1: `PUT the raw file bytes to uploadUrl with the header "Content-Type: ${contentType}" before ${expiresAt}.`,
      step2: 'Create a job with POST /v1/jobs and {"uploadKey": "<uploadKey>"}.',
      note: `Files up to ${Math.floor(maxBytes / (1024 * 1024))} MB; the file is probed and must be readable audio.`,
    },
  };
}
