import { createReadStream as createFileStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { assertBlobKey, assertBlobPrefix } from './blob-key.ts';
import { STORAGE_BACKENDS, type StorageCapabilities } from './backends.ts';
import {
  assertPutOptions,
  assertSignedDownloadOptions,
  checkRange,
  type BlobStat,
  type BlobStore,
  type PutOptions,
  type SignedDownloadOptions,
  type UnfinishedWrite,
  type SignedUploadOptions,
} from './blob-store.ts';
import { holdPath, isPathHeld } from './held-paths.ts';
import { attachmentDisposition } from './content-disposition.ts';
import { BlobNotFoundError } from './errors.ts';
import { copyWithLimit } from './limited-copy.ts';

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint: string | undefined;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

export interface S3BlobStoreOptions {
  /** Client for every request. */
  client: S3Client;
  bucket: string;
  /**
   * The endpoint download URLs are presigned for (S3_PUBLIC_ENDPOINT, else S3_ENDPOINT), whose
   * origin the dashboard's CSP allows; absent: AWS's own hosts, which depend on bucket and region.
   */
  endpoint?: string;
  /** Client used only to presign download URLs, when clients reach S3 at another address. */
  presignClient?: S3Client;
  /** Multipart part size; lib-storage buffers at most queueSize x partSize bytes per upload. */
  partSize?: number;
  queueSize?: number;
  /** Clock for URL signing; tests move it. */
  now?: () => number;
}

/** Builds an S3Client from the service's storage settings. */
export function createS3Client(s: S3Settings, overrides: Partial<S3ClientConfig> = {}): S3Client {
  return new S3Client({
    region: s.region,
    endpoint: s.endpoint,
    forcePathStyle: s.forcePathStyle,
    // Without explicit keys the SDK's default chain applies (instance roles, AWS_PROFILE ...).
    credentials:
      s.accessKeyId && s.secretAccessKey
        ? { accessKeyId: s.accessKeyId, secretAccessKey: s.secretAccessKey }
        : undefined,
    // SDK >= 3.729 adds CRC32 checksums (aws-chunked trailers) to every upload by default; many
    // S3-compatible servers reject or mishandle them, so with a custom endpoint only send checksums
    // where an operation requires one.
    ...(s.endpoint ? { requestChecksumCalculation: 'WHEN_REQUIRED', responseChecksumValidation: 'WHEN_REQUIRED' } : {}),
    ...overrides,
  });
}

const MiB = 1024 * 1024;

/**
 * Blobs as objects in one S3 bucket (or any S3-compatible store), keyed by the blob key itself.
 * Uploads stream through lib-storage (multipart above one part), downloads are presigned GET URLs
 * whose response headers (`Content-Disposition`, `Content-Type`) S3 sets from the signed query.
 */
export class S3BlobStore implements BlobStore {
  readonly #client: S3Client;
  readonly #presign: S3Client;
  readonly #bucket: string;
  readonly #now: () => number;
  readonly capabilities: StorageCapabilities;

  constructor(private readonly options: S3BlobStoreOptions) {
    this.capabilities = {
      sharedBetweenProcesses: STORAGE_BACKENDS.s3.sharedBetweenProcesses,
      downloadOrigins: [options.endpoint ? new URL(options.endpoint).origin : 'https:'],
    };
    this.#client = options.client;
    this.#presign = options.presignClient ?? options.client;
    this.#bucket = options.bucket;
    this.#now = options.now ?? Date.now;
  }

  async put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }> {
    assertBlobKey(key);
    assertPutOptions(options);
    // Held while this process writes it, so no orphan sweep aborts the multipart upload under it.
    const release = holdPath(this.#heldName(key));
    try {
      return await this.#put(key, body, options);
    } finally {
      release();
    }
  }

  async #put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }> {
    const pass = new PassThrough({ highWaterMark: MiB });
    const upload = new Upload({
      client: this.#client,
      params: { Bucket: this.#bucket, Key: key, Body: pass, ContentType: options.contentType },
      partSize: this.options.partSize ?? 8 * MiB,
      queueSize: this.options.queueSize ?? 2,
      // On any failure lib-storage aborts the multipart upload, so no orphan parts are billed.
      leavePartsOnError: false,
    });
    const done = upload.done();
    // If S3 fails first, stop the copy too (it would otherwise wait on backpressure forever).
    done.catch((err: Error) => pass.destroy(err));
    let size: number;
    try {
      size = await copyWithLimit(body, pass, options.maxBytes);
    } catch (err) {
      // copyWithLimit destroyed `pass`, which fails the upload; wait until it has aborted.
      await done.catch(() => {});
      throw err;
    }
    await done;
    return { size };
  }

  async putFile(key: string, localPath: string, options: { contentType: string }): Promise<{ size: number }> {
    const file = createFileStream(localPath);
    try {
      return await this.put(key, file, options);
    } finally {
      file.destroy();
    }
  }

  async stat(key: string): Promise<BlobStat | null> {
    assertBlobKey(key);
    try {
      const head = await this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }));
      return { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
    } catch (err) {
      if (isNotFound(err)) return null;
      throw err;
    }
  }

  async createReadStream(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    assertBlobKey(key);
    // Validate the arguments the same way as the disk adapter; the size check happens at S3.
    checkRange(range, Number.MAX_SAFE_INTEGER);
    const start = range.start ?? 0;
    const header = range.end !== undefined ? `bytes=${start}-${range.end}` : start > 0 ? `bytes=${start}-` : undefined;
    try {
      const res = await this.#client.send(new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: header }));
      return res.Body as Readable;
    } catch (err) {
      if (isNotFound(err)) throw new BlobNotFoundError(key);
      if (httpStatus(err) === 416) {
        // S3 answers 416 to any range on an empty object; start 0 of an empty blob is just empty.
        if (start === 0) return Readable.from([]);
        throw new RangeError(`start ${start} is beyond the blob`);
      }
      throw err;
    }
  }

  async downloadToFile(key: string, localPath: string): Promise<void> {
    const body = await this.createReadStream(key);
    try {
      await pipeline(body, createWriteStream(localPath));
    } catch (err) {
      await rm(localPath, { force: true });
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    assertBlobKey(key);
    await this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }));
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobPrefix(prefix);
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token, MaxKeys: 1000 }),
      );
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const res = await this.#client.send(
          new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys, Quiet: true } }),
        );
        const e = res.Errors?.[0];
        if (res.Errors && e) {
          throw new Error(`S3 could not delete ${res.Errors.length} object(s), first ${e.Key}: ${e.Code} ${e.Message}`);
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  async listFolders(prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const folders: string[] = [];
    let token: string | undefined;
    do {
      const page = await this.#client.send(
        new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, Delimiter: '/', ContinuationToken: token }),
      );
      for (const p of page.CommonPrefixes ?? []) {
        if (p.Prefix?.startsWith(prefix)) folders.push(p.Prefix.slice(prefix.length, -1));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return folders;
  }

  async signedDownloadUrl(key: string, options: SignedDownloadOptions): Promise<{ url: string; expiresAt: Date }> {
    assertBlobKey(key);
    assertSignedDownloadOptions(options);
    // SigV4 dates have one-second resolution; sign with a whole second so expiresAt is exact.
    const signingDate = new Date(Math.floor(this.#now() / 1000) * 1000);
    const command = new GetObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ResponseContentDisposition: attachmentDisposition(options.fileName),
      ResponseContentType: options.contentType,
      ResponseCacheControl: 'private',
    });
    const url = await getSignedUrl(this.#presign, command, { expiresIn: options.expiresInSeconds, signingDate });
    return { url, expiresAt: new Date(signingDate.getTime() + options.expiresInSeconds * 1000) };
  }

  /**
   * Multipart uploads still open in the bucket that this process is not writing: a process killed
   * mid-upload leaves one (lib-storage aborts only on an error it lives to see), and S3 keeps its
   * parts, billed, until AbortMultipartUpload or the bucket's AbortIncompleteMultipartUpload rule.
   */
  async listUnfinishedWrites(): Promise<UnfinishedWrite[]> {
    const writes: UnfinishedWrite[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const page = await this.#client.send(
        new ListMultipartUploadsCommand({
          Bucket: this.#bucket,
          KeyMarker: keyMarker,
          UploadIdMarker: uploadIdMarker,
        }),
      );
      for (const u of page.Uploads ?? []) {
        if (!u.Key || !u.UploadId || isPathHeld(this.#heldName(u.Key))) continue;
        writes.push({ id: u.UploadId, key: u.Key, startedAt: u.Initiated ?? new Date(0) });
      }
      const more = page.IsTruncated === true;
      keyMarker = more ? page.NextKeyMarker : undefined;
      uploadIdMarker = more ? page.NextUploadIdMarker : undefined;
    } while (keyMarker);
    return writes;
  }

  async abortUnfinishedWrite(write: UnfinishedWrite): Promise<void> {
    if (!write.key) throw new Error('an S3 multipart upload has a key');
    try {
      await this.#client.send(
        new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: write.key, UploadId: write.id }),
      );
    } catch (err) {
      // Finished or aborted meanwhile: nothing left to abort.
      if ((err as { name?: string }).name !== 'NoSuchUpload' && !isNotFound(err)) throw err;
    }
  }

  #heldName(key: string): string {
    return `s3://${this.#bucket}/${key}`;
  }

  /**
   * A presigned PutObject URL (SigV4, query-string authentication) for the address clients use.
   * `Content-Type` and, when given, `Content-Length` are signed headers: S3 answers 403
   * SignatureDoesNotMatch to a PUT that sends another value, and 403 AccessDenied once it expired.
   */
  async signedUploadUrl(key: string, options: SignedUploadOptions): Promise<{ url: string; expiresAt: Date }> {
    assertBlobKey(key);
    assertSignedDownloadOptions({ fileName: 'upload', ...options });
    const length = options.contentLength;
    if (length !== undefined && (!Number.isSafeInteger(length) || length < 1)) {
      throw new TypeError('contentLength must be a positive integer');
    }
    const signingDate = new Date(Math.floor(this.#now() / 1000) * 1000);
    const command = new PutObjectCommand({
      Bucket: this.#bucket,
      Key: key,
      ContentType: options.contentType,
      ContentLength: length,
    });
    const url = await getSignedUrl(this.#presign, command, {
      expiresIn: options.expiresInSeconds,
      signingDate,
      // Both stay headers the client must send as signed (never hoisted into the query string).
      signableHeaders: new Set(['content-type', ...(length === undefined ? [] : ['content-length'])]),
      unhoistableHeaders: new Set(['content-type', 'content-length']),
    });
    return { url, expiresAt: new Date(signingDate.getTime() + options.expiresInSeconds * 1000) };
  }

  async close(): Promise<void> {
    this.#client.destroy();
    if (this.#presign !== this.#client) this.#presign.destroy();
  }
}

function httpStatus(err: unknown): number | undefined {
  return (err as { $metadata?: { httpStatusCode?: number } } | undefined)?.$metadata?.httpStatusCode;
}

function isNotFound(err: unknown): boolean {
  const name = (err as { name?: string } | undefined)?.name;
  return name === 'NotFound' || name === 'NoSuchKey' || httpStatus(err) === 404;
}
