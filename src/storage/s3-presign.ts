import { GetObjectCommand, PutObjectCommand, type S3Client } from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertBlobKey } from './blob-key.ts';
import { assertSignedDownloadOptions, type SignedDownloadOptions, type SignedUploadOptions } from './blob-store.ts';
import { attachmentDisposition } from './content-disposition.ts';

/** What presigning needs: the client for the address clients use, the bucket, and the time now (ms). */
export interface Signing {
  client: S3Client;
  bucket: string;
  now: number;
}

/** SigV4 dates have one-second resolution; sign with a whole second so expiresAt is exact. */
function signingDate(now: number): Date {
  return new Date(Math.floor(now / 1000) * 1000);
}

/** A presigned GET whose response headers (`Content-Disposition`, `Content-Type`) S3 sets from the signed query. */
export async function presignDownload(
  s: Signing,
  key: string,
  options: SignedDownloadOptions,
): Promise<{ url: string; expiresAt: Date }> {
  assertBlobKey(key);
  assertSignedDownloadOptions(options);
  const date = signingDate(s.now);
  const command = new GetObjectCommand({
    Bucket: s.bucket,
    Key: key,
    ResponseContentDisposition: attachmentDisposition(options.fileName),
    ResponseContentType: options.contentType,
    ResponseCacheControl: 'private',
  });
  const url = await getSignedUrl(s.client, command, { expiresIn: options.expiresInSeconds, signingDate: date });
  return { url, expiresAt: new Date(date.getTime() + options.expiresInSeconds * 1000) };
}

/**
 * A presigned PutObject URL (SigV4, query-string authentication) for the address clients use.
 * `Content-Type` and, when given, `Content-Length` are signed headers: S3 answers 403
 * SignatureDoesNotMatch to a PUT that sends another value, and 403 AccessDenied once it expired.
 */
export async function presignUpload(
  s: Signing,
  key: string,
  options: SignedUploadOptions,
): Promise<{ url: string; expiresAt: Date }> {
  assertBlobKey(key);
  assertSignedDownloadOptions({ fileName: 'upload', ...options });
  const length = options.contentLength;
  if (length !== undefined && (!Number.isSafeInteger(length) || length < 1)) {
    throw new TypeError('contentLength must be a positive integer');
  }
  const date = signingDate(s.now);
  const command = new PutObjectCommand({
    Bucket: s.bucket,
    Key: key,
    ContentType: options.contentType,
    ContentLength: length,
  });
  const url = await getSignedUrl(s.client, command, {
    expiresIn: options.expiresInSeconds,
    signingDate: date,
    // Both stay headers the client must send as signed (never hoisted into the query string).
    signableHeaders: new Set(['content-type', ...(length === undefined ? [] : ['content-length'])]),
    unhoistableHeaders: new Set(['content-type', 'content-length']),
  });
  return { url, expiresAt: new Date(date.getTime() + options.expiresInSeconds * 1000) };
}
