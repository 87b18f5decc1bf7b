import type { Readable } from 'node:stream';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { ApiError } from '../../domain/errors.ts';
import { defineRoute } from '../../routing/route.ts';
import { assertBlobKey, isBlobKey } from '../../storage/blob-key.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { parseByteRange } from '../../storage/byte-range.ts';
import { attachmentDisposition } from '../../storage/content-disposition.ts';
import { BLOB_ROUTE_PREFIX, verifyDownloadQuery } from '../../storage/download-url.ts';
import type { UrlSigner } from '../../storage/url-signer.ts';

export interface BlobRouteDeps {
  blobs: BlobStore;
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
export function blobRoutes(deps: BlobRouteDeps) {
  const now = deps.now ?? Date.now;
  return [
    defineRoute({
      method: ['GET', 'HEAD'],
      url: `${BLOB_ROUTE_PREFIX}*`,
      summary: "Download a stored file by a signed URL (the disk store's download and output URLs)",
      description:
        "The URLs in job outputs and download redirects when files are on this server's disk (not S3). The signature " +
        'is the authorisation (no API key). Single byte ranges (206, 416), Content-Disposition with the file name.',
      tag: 'Downloads',
      // The signature is the authorisation: no API key, no rate-limit count.
      auth: 'none',
      params: BlobParams,
      query: SignedQuery,
      invalidInput: () => new ApiError('INVALID_SIGNATURE'),
      status: 200,
      response: null,
      errors: ['INVALID_SIGNATURE', 'DOWNLOAD_URL_EXPIRED', 'FILE_NOT_FOUND', 'RANGE_NOT_SATISFIABLE'],
      handler: ({ request, reply, params, query }) => serveBlob(request, reply, deps, params['*'], query, now()),
    }),
  ];
}

const BlobParams = z.object({ '*': z.string() });
const SignedQuery = z.object({
  exp: z.string().describe('Expiry, Unix seconds'),
  name: z.string().describe('The file name the download is saved under'),
  ct: z.string().describe('Content-Type'),
  sig: z.string().describe('HMAC signature'),
});

async function serveBlob(
  req: FastifyRequest,
  reply: FastifyReply,
  deps: BlobRouteDeps,
  key: string,
  query: z.infer<typeof SignedQuery>,
  nowMs: number,
): Promise<FastifyReply> {
  // A key outside the grammar was never signed by us; say so without touching storage.
  if (!isBlobKey(key)) throw new ApiError('INVALID_SIGNATURE');
  const check = verifyDownloadQuery(deps.signer, assertBlobKey(key), query, nowMs);
  if (!check.ok) throw new ApiError(check.reason === 'expired' ? 'DOWNLOAD_URL_EXPIRED' : 'INVALID_SIGNATURE');

  const stat = await deps.blobs.stat(key);
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
    stream = await deps.blobs.createReadStream(key, { start, end });
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
