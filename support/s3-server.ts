import { createHash, createHmac, randomUUID } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
// s3rver is CommonJS without types; it is a Koa application.
// @ts-expect-error no type declarations
import S3rver from 's3rver';

/**
 * A real S3-compatible HTTP server on 127.0.0.1 (s3rver, files in a temp folder), for the S3
 * adapter's conformance run. s3rver lacks two things the suite relies on, which this helper adds in
 * front of it, following the S3 documentation:
 * - it accepts any SigV4 signature ("V4 signatures have incomplete support"), so a tampered
 *   presigned URL would pass; presigned query-string requests are verified here, signed headers
 *   (a presigned PUT's Content-Type and Content-Length) and expiry (X-Amz-Date + X-Amz-Expires)
 *   included;
 * - it has no AbortMultipartUpload; here it removes the upload's parts;
 * - it has no ListMultipartUploads; here it lists the open uploads (key, id, `Initiated`) in one page;
 * - it streams each PUT straight into the object's file, so concurrent PUTs to one key interleave
 *   their bytes; S3 replaces an object whole (of concurrent PUTs one survives, complete), so here
 *   each PUT is written to a file of its own and renamed into place.
 */
export interface TestS3Server {
  endpoint: string;
  bucket: string;
  region: string;
  accessKeyId: string;
  secretAccessKey: string;
  /** Multipart uploads still open (parts an aborted upload failed to clean up). */
  openMultipartUploads(): Promise<string[]>;
  close(): Promise<void>;
}

/** The settings that point Stemforge at this server: `STORAGE=s3` and the `S3_*` variables. */
export function s3Settings(s3: TestS3Server) {
  return {
    STORAGE: 's3',
    S3_BUCKET: s3.bucket,
    S3_REGION: s3.region,
    S3_ENDPOINT: s3.endpoint,
    S3_ACCESS_KEY_ID: s3.accessKeyId,
    S3_SECRET_ACCESS_KEY: s3.secretAccessKey,
  };
}

// s3rver's built-in account.
const ACCESS_KEY = 'S3RVER';
const SECRET_KEY = 'S3RVER';

/**
 * `corsOrigin`: a bucket CORS rule allowing PUT and GET (with `Content-Type`) from that origin, as
 * docs/deploy.md asks of a bucket that browsers upload to. `withoutMultipartListing`: answers
 * ListMultipartUploads 501 NotImplemented, as some S3-compatible stores do.
 */
export async function startS3Server(
  bucket = 'stemforge-test',
  opts: { corsOrigin?: string; withoutMultipartListing?: boolean } = {},
): Promise<TestS3Server> {
  const directory = await mkdtemp(join(tmpdir(), 'stemforge-s3-'));
  const cors = opts.corsOrigin
    ? `<CORSConfiguration><CORSRule><AllowedOrigin>${opts.corsOrigin}</AllowedOrigin><AllowedMethod>PUT</AllowedMethod><AllowedMethod>GET</AllowedMethod><AllowedHeader>content-type</AllowedHeader><ExposeHeader>ETag</ExposeHeader></CORSRule></CORSConfiguration>`
    : undefined;
  const s3 = new S3rver({
    address: '127.0.0.1',
    port: 0,
    silent: true,
    directory,
    configureBuckets: [{ name: bucket, ...(cors ? { configs: [cors] } : {}) }],
  });
  const puts = await mkdtemp(join(tmpdir(), 'stemforge-s3-puts-'));
  atomicPuts(s3.store as S3rverStore, puts);
  const uploadsDir = join(directory, bucket, '._S3rver_uploads');
  // Koa composes its middleware when the server starts, so these run before s3rver's own.
  (s3.middleware as unknown[]).unshift(
    abortMultipartMiddleware(uploadsDir),
    listMultipartMiddleware(bucket, uploadsDir, !opts.withoutMultipartListing),
    presignedSignatureMiddleware(SECRET_KEY),
  );
  const address = (await s3.run()) as { port: number };
  return {
    endpoint: `http://127.0.0.1:${address.port}`,
    bucket,
    region: 'us-east-1',
    accessKeyId: ACCESS_KEY,
    secretAccessKey: SECRET_KEY,
    async openMultipartUploads() {
      return readdir(uploadsDir).catch(() => []);
    },
    async close() {
      const server = s3.httpServer as Server;
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await rm(directory, { recursive: true, force: true });
      await rm(puts, { recursive: true, force: true });
    },
  };
}

/** The parts of s3rver's FilesystemStore that atomicPuts replaces and uses. */
interface S3rverStore {
  getResourcePath(bucket: string, key: string, resource: string): string;
  putMetadata(bucket: string, key: string, metadata: unknown, md5: string): Promise<void>;
  putObject(object: S3rverObject): Promise<{ size: number; md5: string }>;
}
interface S3rverObject {
  bucket: string;
  key: string;
  content: Buffer | NodeJS.ReadableStream;
  metadata: unknown;
}

/** s3rver's putObject, writing into `puts` (outside the buckets, so no listing sees it) and renaming. */
function atomicPuts(store: S3rverStore, puts: string): void {
  store.putObject = async (object) => {
    const objectPath = store.getResourcePath(object.bucket, object.key, 'object');
    await mkdir(dirname(objectPath), { recursive: true });
    const temp = join(puts, randomUUID());
    const md5 = createHash('md5');
    let size = 0;
    const count = new Transform({
      transform(chunk: Buffer, _encoding, done) {
        md5.update(chunk);
        size += chunk.length;
        done(null, chunk);
      },
    });
    const content = Buffer.isBuffer(object.content) ? Readable.from([object.content]) : object.content;
    await pipeline(content, count, createWriteStream(temp));
    await rename(temp, objectPath);
    const digest = md5.digest('hex');
    await store.putMetadata(object.bucket, object.key, object.metadata, digest);
    return { size, md5: digest };
  };
}

interface KoaContext {
  method: string;
  url: string;
  path: string;
  query: Record<string, string | string[]>;
  get(header: string): string;
  status: number;
  body: unknown;
  type: string;
}
type Next = () => Promise<unknown>;

function abortMultipartMiddleware(uploadsDir: string) {
  return async (ctx: KoaContext, next: Next) => {
    const uploadId = ctx.query.uploadId;
    if (ctx.method !== 'DELETE' || typeof uploadId !== 'string') return next();
    if (!/^[A-Za-z0-9_-]+$/.test(uploadId)) return next();
    await rm(join(uploadsDir, uploadId), { recursive: true, force: true });
    ctx.status = 204;
  };
}

/** ListMultipartUploads (`GET /<bucket>?uploads`, S3 API reference), one page, with `prefix`. */
function listMultipartMiddleware(bucket: string, uploadsDir: string, supported: boolean) {
  const xml = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
  return async (ctx: KoaContext, next: Next) => {
    if (ctx.method !== 'GET' || !('uploads' in ctx.query) || ctx.path.replace(/\/$/, '') !== `/${bucket}`) {
      return next();
    }
    if (!supported) {
      // S3's own answer to a call a store does not implement (its error-code list, `NotImplemented`).
      ctx.status = 501;
      ctx.type = 'application/xml';
      ctx.body =
        '<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NotImplemented</Code>' +
        '<Message>A parameter you provided implies functionality that is not implemented</Message></Error>';
      return;
    }
    const prefix = typeof ctx.query.prefix === 'string' ? ctx.query.prefix : '';
    const uploads: string[] = [];
    for (const id of await readdir(uploadsDir).catch(() => [] as string[])) {
      const keyFile = join(uploadsDir, id, 'key');
      const key = await readFile(keyFile, 'utf8').catch(() => null);
      if (key === null || !key.startsWith(prefix)) continue;
      const initiated = (await stat(keyFile)).mtime.toISOString();
      uploads.push(
        `<Upload><Key>${xml(key)}</Key><UploadId>${id}</UploadId><Initiated>${initiated}</Initiated><StorageClass>STANDARD</StorageClass></Upload>`,
      );
    }
    ctx.status = 200;
    ctx.type = 'application/xml';
    ctx.body =
      '<?xml version="1.0" encoding="UTF-8"?>\n<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">' +
      `<Bucket>${bucket}</Bucket><Prefix>${xml(prefix)}</Prefix><MaxUploads>1000</MaxUploads><IsTruncated>false</IsTruncated>` +
      `${uploads.join('')}</ListMultipartUploadsResult>`;
  };
}

/**
 * Verifies SigV4 query-string authentication ("Authenticating Requests: Using Query Parameters",
 * AWS S3 API reference), independently of the SDK's signer.
 */
function presignedSignatureMiddleware(secretKey: string) {
  return async (ctx: KoaContext, next: Next) => {
    const [path, rawQuery = ''] = ctx.url.split('?');
    const params = rawQuery
      .split('&')
      .filter(Boolean)
      .map((p): [string, string] => {
        const i = p.indexOf('=');
        return i < 0
          ? [decodeURIComponent(p), '']
          : [decodeURIComponent(p.slice(0, i)), decodeURIComponent(p.slice(i + 1))];
      });
    const get = (name: string) => params.find(([k]) => k === name)?.[1];
    const signature = get('X-Amz-Signature');
    // A CORS preflight carries the URL but is never signed; S3 answers it from the bucket's rules.
    if (signature === undefined || ctx.method === 'OPTIONS') return next();

    const canonicalQuery = params
      .filter(([k]) => k !== 'X-Amz-Signature')
      .map(([k, v]): [string, string] => [rfc3986(k), rfc3986(v)])
      .sort(([a, av], [b, bv]) => (a < b ? -1 : a > b ? 1 : av < bv ? -1 : av > bv ? 1 : 0))
      .map(([k, v]) => `${k}=${v}`)
      .join('&');
    const signedHeaders = get('X-Amz-SignedHeaders') ?? '';
    const canonicalHeaders = signedHeaders
      .split(';')
      .map((h) => `${h}:${ctx.get(h).trim().replace(/\s+/g, ' ')}\n`)
      .join('');
    const canonicalRequest = [
      ctx.method,
      path,
      canonicalQuery,
      canonicalHeaders,
      signedHeaders,
      'UNSIGNED-PAYLOAD',
    ].join('\n');
    const [, date = '', region = '', service = ''] = (get('X-Amz-Credential') ?? '').split('/');
    const scope = `${date}/${region}/${service}/aws4_request`;
    const stringToSign = ['AWS4-HMAC-SHA256', get('X-Amz-Date') ?? '', scope, sha256(canonicalRequest)].join('\n');
    let key: Buffer = hmac(`AWS4${secretKey}`, date);
    for (const part of [region, service, 'aws4_request']) key = hmac(key, part);
    if (hmac(key, stringToSign).toString('hex') !== signature) return refuse(ctx, 'SignatureDoesNotMatch');
    // S3 checks the signature first, then the expiry ("Request has expired", 403 AccessDenied).
    const signedAt = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(get('X-Amz-Date') ?? '');
    const expires = Number(get('X-Amz-Expires'));
    if (!signedAt || !Number.isInteger(expires)) return refuse(ctx, 'AuthorizationQueryParametersError');
    const [, y, mo, d, h, mi, sec] = signedAt.map(Number) as number[];
    if (Date.UTC(y!, mo! - 1, d!, h!, mi!, sec!) + expires * 1000 < Date.now()) return refuse(ctx, 'AccessDenied');
    return next();
  };
}

function refuse(ctx: KoaContext, code: string): void {
  ctx.status = 403;
  ctx.type = 'application/xml';
  ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${code}</Code></Error>`;
}

function rfc3986(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
}
function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}
function hmac(key: string | Buffer, data: string): Buffer {
  return createHmac('sha256', key).update(data).digest();
}
