import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { findUpload } from '../store/uploads.ts';
import { ingestFile, tooLarge } from './ingest-file.ts';
import { UploadedFile } from '../contract/upload.ts';
import type { Runtime } from '../runtime.ts';

/** The fields an upload URL's signature covers: the method, the upload, the expiry and the content type. */
export function uploadSignatureFields(uploadId: string, exp: string, contentType: string): Record<string, string> {
  return { method: 'PUT', upload: uploadId, exp, ct: contentType };
}

const Query = z.object({ exp: z.string().regex(/^\d+$/), sig: z.string().regex(/^[0-9a-f]+$/i) });
const Params = z.object({ id: z.string().regex(/^upl_[0-9A-Za-z]+$/) });

/**
 * PUT {uploadUrl}: the signed upload target. Authenticated by the URL's HMAC signature (no API key),
 * it streams the raw body to storage. Registered in its own plugin so that any Content-Type reaches
 * the handler as an unparsed stream.
 */
export function registerUploadPut(app: FastifyInstance, rt: Runtime): void {
  app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    scope.put(
      '/v1/uploads/:id',
      { config: { auth: 'none' }, bodyLimit: Number.MAX_SAFE_INTEGER },
      async (request, reply) => {
        const query = Query.safeParse(request.query);
        const params = Params.safeParse(request.params);
        if (!query.success || !params.success)
          throw new ApiError('INVALID_SIGNATURE', 'The upload URL is incomplete or malformed.');
        const upload = await findUpload(rt.db, params.data.id);
        const fields = uploadSignatureFields(params.data.id, query.data.exp, upload?.content_type ?? '');
        if (!upload || !rt.signer.verify(fields, query.data.sig)) throw new ApiError('INVALID_SIGNATURE');
        if (Number(query.data.exp) * 1000 < Date.now()) throw new ApiError('UPLOAD_URL_EXPIRED');
        if (upload.status !== 'pending') throw new ApiError('UPLOAD_ALREADY_COMPLETED');
        const sent = (request.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
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
          const result = await ingestFile(rt, upload, request.body as Readable);
          return reply.code(200).send(UploadedFile.parse(result));
        } catch (err) {
          // Stop reading a body we are refusing; the client gets the answer and the connection closes.
          reply.header('Connection', 'close');
          throw err;
        }
      },
    );
  });
}
