import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../domain/errors.ts';
import { assertBlobKey, isBlobKey } from '../../storage/blob-key.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { parseByteRange } from '../../storage/byte-range.ts';
import { attachmentDisposition } from '../../storage/content-disposition.ts';
import { BLOB_ROUTE_PREFIX, verifyDownloadQuery } from '../../storage/download-url.ts';
import type { UrlSigner } from '../../storage/url-signer.ts';

export interface BlobRouteDeps {
  store: BlobStore;
  signer: UrlSigner;
  /** Clock for expiry checks; tests move it. */
  now?: () => number;
}

/**
 * `GET` and `HEAD /v1/blobs/*`: the signed download URLs of the disk adapter (see
 * `storage/download-url.ts`). The signature is the authorisation, so these routes must be exempt
 * from API-key auth and rate limiting. Answers follow RFC 9110 (single byte ranges, 206/416) and
 * RFC 6266 (`Content-Disposition`), so audio players can seek and browsers save under the job's
 * file name.
 */
export function registerBlobRoutes(app: FastifyInstance, deps: BlobRouteDeps): void {
  const now = deps.now ?? Date.now;
  app.route({
    method: ['GET', 'HEAD'],
    url: `${BLOB_ROUTE_PREFIX}*`,
    exposeHeadRoute: false,
    // The signature is the authorisation: no API key, no rate-limit count.
    config: { auth: 'none' },
    handler: (req, reply) => serveBlob(req, reply, deps, now()),
  });
}

async function serveBlob(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: BlobRouteDeps,
  nowMs: number,
): Promise<FastifyReply> {
  const key = (req.params as { '*': string })['*'];
  // A key outside the grammar was never signed by us; say so without touching storage.
  if (!isBlobKey(key)) throw new ApiError('INVALID_SIGNATURE');
  const check = verifyDownloadQuery(deps.signer, assertBlobKey(key), req.query as Record<string, unknown>, nowMs);
  if (!check.ok) throw new ApiError(check.reason === 'expired' ? 'DOWNLOAD_URL_EXPIRED' : 'INVALID_SIGNATURE');

  const stat = await deps.store.stat(key);
  if (!stat) throw new ApiError('FILE_NOT_FOUND');

  const range = parseByteRange(headerValue(req.headers.range), stat.size);
  if (range === 'unsatisfiable') {
    // Thrown before any content header is set, so the JSON error body is not labelled as audio.
    throw new ApiError('RANGE_NOT_SATISFIABLE', undefined, {}, { 'Content-Range': `bytes */${stat.size}` });
  }
  const { start, end } = range ?? { start: 0, end: stat.size - 1 };
  const length = stat.size === 0 ? 0 : end - start + 1;
  let stream: Readable | undefined;
  if (req.method === 'GET' && length > 0) {
    // Opened before any header is set, so a blob deleted since `stat` still gets a clean JSON 404.
    // BlobNotFoundError answers FILE_NOT_FOUND (error-table.ts).
    stream = await deps.store.createReadStream(key, { start, end });
  }

  reply.header('Accept-Ranges', 'bytes');
  reply.header('Cache-Control', 'private');
  // The bytes are user uploads or derived from them; never let a browser sniff them into HTML.
  reply.header('X-Content-Type-Options', 'nosniff');
  reply.header('Content-Disposition', attachmentDisposition(check.grant.fileName));
  reply.header('Content-Type', check.grant.contentType);
  if (range) {
    reply.code(206);
    reply.header('Content-Range', `bytes ${start}-${end}/${stat.size}`);
  }
  reply.header('Content-Length', String(length));
  return reply.send(stream);
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v.join(',') : v;
}
