import type { FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import type { UploadRow } from '../../store/uploads.ts';
import { discardFormUpload, openFormUpload } from '../../uploads/form-upload.ts';
import { ingestUpload } from '../../uploads/ingest.ts';
import { tooLarge } from '../../uploads/receive.ts';
import { defineRoute } from '../../routing/route.ts';
import { UploadedFile } from '../../contract/upload.ts';
import type { AuthContext } from '../../routing/request-context.ts';
import type { Runtime } from '../../runtime.ts';

/** Form fields besides the file are ignored, but bounded, so a form cannot stream unbounded text. */
const FORM_LIMITS = { files: 1, fields: 20, fieldSize: 4096, parts: 21, headerPairs: 100 };
/** Multipart framing plus the bounded fields above never reach this; a larger Content-Length is refused unread. */
const MULTIPART_OVERHEAD_BYTES = 1024 * 1024;

/**
 * `POST /v1/files/upload`: the one-request upload (API.md "Denoise jobs"): multipart/form-data with
 * exactly one file part named `file`. The part streams through `ingestUpload` (src/uploads: temp file
 * with the size cap, probe and measuring decode, atomic publish), never into memory.
 */
export function fileRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/files/upload',
      summary: 'Upload an audio file in one multipart request',
      description:
        'multipart/form-data with exactly one file part named "file" (other text fields are ignored). The file is probed; pass uploadKey as inputFilePath to POST /denoise-jobs (or as uploadKey to POST /jobs). expiresAt: when the stored file is deleted unless a job still needs it.',
      tag: 'Uploads',
      auth: 'apiKey',
      // fileSize max+1: a file of exactly the limit passes; one byte more is truncated and refused.
      bodyMode: { multipart: { ...FORM_LIMITS, fileSize: rt.config.limits.maxFileSizeBytes + 1 } },
      documentedBody: {
        mediaType: 'multipart/form-data',
        schema: {
          type: 'object',
          required: ['file'],
          properties: { file: { type: 'string', format: 'binary', description: 'The audio file.' } },
        },
      },
      status: 200,
      response: UploadedFile,
      errors: [
        'VALIDATION_ERROR',
        'UNSUPPORTED_MEDIA_TYPE',
        'UNSUPPORTED_FORMAT',
        'AUDIO_NOT_DECODABLE',
        'FILE_TOO_LARGE',
      ],
      handler: async ({ auth, request, reply }) => receiveUpload(rt, auth, request, reply),
    }),
  ];
}

async function receiveUpload(rt: Runtime, auth: AuthContext, request: FastifyRequest, reply: FastifyReply) {
  if (!request.isMultipart()) {
    reply.header('Connection', 'close');
    throw new ApiError(
      'UNSUPPORTED_MEDIA_TYPE',
      'Send the file as multipart/form-data with one file part named "file".',
    );
  }
  const maxBytes = rt.config.limits.maxFileSizeBytes;
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes + MULTIPART_OVERHEAD_BYTES) {
    reply.header('Connection', 'close');
    throw tooLarge(maxBytes);
  }
  let row: UploadRow | undefined;
  let result: Awaited<ReturnType<typeof ingestUpload>> | undefined;
  let sawFileField = false;
  try {
    for await (const part of request.parts()) {
      if (part.type === 'field') {
        sawFileField ||= part.fieldname === 'file';
        continue;
      }
      if (part.fieldname !== 'file') {
        throw new ApiError(
          'VALIDATION_ERROR',
          `The file part must be named 'file' (got '${part.fieldname.slice(0, 50)}').`,
          { field: 'file' },
        );
      }
      // The extension picks the stored type (as for the upload grant); the content decides acceptance.
      row = await openFormUpload(rt, auth.accountId, part.filename);
      result = await ingestUpload(rt, row, part.file);
      if (part.file.truncated) throw tooLarge(maxBytes);
    }
  } catch (err) {
    // Nothing of a refused request stays behind; and the unread rest of the body is not read.
    if (row) await discardFormUpload(rt, row);
    reply.header('Connection', 'close');
    throw multipartError(err, maxBytes);
  }
  if (!result) {
    const hint = sawFileField
      ? "The 'file' part has no filename, so it was read as a text field; send it as a file."
      : "No file part named 'file' was sent.";
    throw new ApiError('VALIDATION_ERROR', hint, { field: 'file' });
  }
  return {
    ...result,
    expiresAt: new Date(Date.parse(row!.expires_at) + rt.config.retentionSeconds * 1000).toISOString(),
  };
}

/** @fastify/multipart and busboy errors in the catalog's terms. */
function multipartError(err: unknown, maxBytes: number): unknown {
  const code = (err as { code?: string }).code;
  if (code === 'FST_REQ_FILE_TOO_LARGE') return tooLarge(maxBytes);
  if (code === 'FST_FILES_LIMIT')
    return new ApiError(
      'VALIDATION_ERROR',
      "Send exactly one file, in the part named 'file'; more than one file was sent.",
      { field: 'file' },
    );
  if (code === 'FST_PARTS_LIMIT' || code === 'FST_FIELDS_LIMIT') {
    return new ApiError(
      'VALIDATION_ERROR',
      `The form has too many parts; send one file part named 'file' (at most ${FORM_LIMITS.fields} other fields).`,
    );
  }
  if (code === 'FST_INVALID_MULTIPART_CONTENT_TYPE') return new ApiError('UNSUPPORTED_MEDIA_TYPE');
  const status = (err as { statusCode?: number }).statusCode ?? 500;
  // The plugin's other refusals (prototype field names, bad JSON fields, early close) and busboy's parse errors.
  if (
    (code?.startsWith('FST_') && status < 500) ||
    (err instanceof Error && !code && /multipart|boundary|part|form/i.test(err.message))
  ) {
    return new ApiError('VALIDATION_ERROR', `The multipart body is malformed: ${(err as Error).message}.`);
  }
  return err;
}
