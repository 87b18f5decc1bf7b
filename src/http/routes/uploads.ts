import type { Readable } from 'node:stream';
import { z } from 'zod';
import { UploadedFile, UploadGrant, UploadGrantRequest } from '../../contract/upload.ts';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import type { Runtime } from '../../runtime.ts';
import { grantUpload, verifyUploadUrl } from '../../uploads/grant.ts';
import { ingestUpload } from '../../uploads/ingest.ts';
import { tooLarge } from '../../uploads/receive.ts';

const SignedQuery = z.object({ exp: z.string().regex(/^\d+$/), sig: z.string().regex(/^[0-9a-f]+$/i) });
const UploadParams = z.object({ id: z.string().regex(/^upl_[0-9A-Za-z]+$/) });

/** The upload grant (`POST /v1/upload`) and its signed target (`PUT {uploadUrl}`). */
export function uploadRoutes(rt: Runtime) {
  return [
    defineRoute({
      method: 'POST',
      url: '/v1/upload',
      summary: 'Get a signed URL to upload an audio file',
      description:
        'PUT the raw file to `uploadUrl` with the granted Content-Type within 15 minutes, then pass `uploadKey` to a job. In scale-out with S3 storage `uploadUrl` is a presigned PUT straight to the bucket (S3 refuses another Content-Type, another size when `fileSizeBytes` was given, or a late PUT with 403); the file is then probed and measured by the worker before anything is separated or charged.',
      tag: 'Uploads',
      auth: 'apiKey',
      body: UploadGrantRequest,
      status: 200,
      response: UploadGrant,
      errors: ['VALIDATION_ERROR', 'UNSUPPORTED_FORMAT', 'FILE_TOO_LARGE'],
      handler: ({ body, auth }) => grantUpload(rt, auth.accountId, body),
    }),
    /**
     * PUT {uploadUrl}: the signed upload target. Authenticated by the URL's HMAC signature (no API
     * key); any Content-Type reaches the handler as an unparsed stream, which goes through
     * `ingestUpload` (src/uploads).
     */
    defineRoute({
      method: 'PUT',
      url: '/v1/uploads/:id',
      summary: 'Upload the file to a signed upload URL (the uploadUrl of POST /upload)',
      description:
        'The raw file as the body, with the Content-Type the grant names. The signature in the URL is the ' +
        'authorisation (no API key). The file is probed and its length measured by decoding it; the first ' +
        'PUT to finish wins (a later one is 409).',
      tag: 'Uploads',
      auth: 'none',
      bodyMode: 'stream',
      bodyLimit: Number.MAX_SAFE_INTEGER,
      documentedBody: { mediaType: 'audio/*', schema: { type: 'string', format: 'binary' } },
      params: UploadParams,
      query: SignedQuery,
      invalidInput: () => new ApiError('INVALID_SIGNATURE', 'The upload URL is incomplete or malformed.'),
      status: 200,
      response: UploadedFile,
      errors: [
        'INVALID_SIGNATURE',
        'UPLOAD_URL_EXPIRED',
        'CONTENT_TYPE_MISMATCH',
        'UNSUPPORTED_FORMAT',
        'AUDIO_NOT_DECODABLE',
        'FILE_TOO_LARGE',
        'UPLOAD_ALREADY_COMPLETED',
      ],
      handler: async ({ request, reply, params, query }) => {
        const upload = await verifyUploadUrl(rt, params.id, query.exp, query.sig);
        const sent = (request.headers['content-type'] ?? '').split(';', 1)[0]!.trim().toLowerCase();
        if (sent !== upload.content_type.toLowerCase()) {
          throw new ApiError(
            'CONTENT_TYPE_MISMATCH',
            `Send the file with "Content-Type: ${upload.content_type}" (got "${sent || 'none'}").`,
          );
        }
        const declared = Number(request.headers['content-length']);
        if (Number.isFinite(declared) && declared > rt.config.limits.maxFileSizeBytes) {
          reply.header('Connection', 'close');
          throw tooLarge(rt.config.limits.maxFileSizeBytes);
        }
        try {
          return await ingestUpload(rt, upload, request.body as Readable);
        } catch (err) {
          // Stop reading a body we are refusing; the client gets the answer and the connection closes.
          reply.header('Connection', 'close');
          throw err;
        }
      },
    }),
  ];
}
