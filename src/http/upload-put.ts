import type { FastifyInstance } from 'fastify';
import type { Readable } from 'node:stream';
import { z } from 'zod';
import { ApiError } from '../domain/errors.ts';
import { UploadedFile } from '../contract/upload.ts';
import { verifyUploadUrl } from '../uploads/grant.ts';
import { ingestUpload } from '../uploads/ingest.ts';
import { tooLarge } from '../uploads/receive.ts';
import type { Runtime } from '../runtime.ts';

const Query = z.object({ exp: z.string().regex(/^\d+$/), sig: z.string().regex(/^[0-9a-f]+$/i) });
const Params = z.object({ id: z.string().regex(/^upl_[0-9A-Za-z]+$/) });

/**
 * PUT {uploadUrl}: the signed upload target. Authenticated by the URL's HMAC signature (no API key);
 * the body goes through `ingestUpload` (src/uploads). Registered in its own plugin so that any
 * Content-Type reaches the handler as an unparsed stream.
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
        const upload = await verifyUploadUrl(rt, params.data.id, query.data.exp, query.data.sig);
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
          const result = await ingestUpload(rt, upload, request.body as Readable);
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
