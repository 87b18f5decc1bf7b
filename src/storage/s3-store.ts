import { createReadStream as createFileStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import {
  AbortMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadBucketCommand,
  HeadObjectCommand,
  ListMultipartUploadsCommand,
  ListObjectsV2Command,
  type S3Client,
} from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { assertBlobKey, assertBlobPrefix } from './blob-key.ts';
import { STORAGE_BACKENDS, type StorageCapabilities } from './backends.ts';
import {
  assertPutOptions,
  checkRange,
  type BlobStat,
  type BlobStore,
  type PutOptions,
  type SignedDownloadOptions,
  type UnfinishedWrite,
  type SignedUploadOptions,
} from './blob-store.ts';
import { holdPath, isPathHeld } from './held-paths.ts';
import { BlobNotFoundError, BucketUnusableError, UnsupportedStoreCallError } from './errors.ts';
import { copyWithLimit } from './limited-copy.ts';
import { callWithin, httpStatus, isNotFound, isNotImplemented, s3Failure } from './s3-calls.ts';
import { unavailableOr } from '../dependencies/unavailable.ts';
import { presignDownload, presignUpload, type Signing } from './s3-presign.ts';
import { listFolders } from './s3-listing.ts';
import type { S3BlobStoreOptions } from './s3-client.ts';

// Where the client is built; the tests and the benches build theirs from here.
export { createS3Client } from './s3-client.ts';

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
  readonly #timeoutMs: number;
  readonly #unavailable: (err: unknown) => unknown;
  /** False once the store answered that it has no ListMultipartUploads. */
  #listsUploads = true;
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
    this.#timeoutMs = options.timeoutMs ?? 5_000;
    this.#unavailable = unavailableOr('storage', s3Failure, options.onUnavailable ?? (() => {}));
  }

  /** One call within the timeout (`s3-calls.ts`). */
  #call<T, U = never>(send: (abortSignal: AbortSignal) => Promise<T>, answered?: (err: unknown) => U) {
    return callWithin(this.#timeoutMs, this.#unavailable, send, answered);
  }

  /**
   * The bucket answers (HeadBucket) within the timeout: the start-up check and `/readyz`.
   * BucketUnusableError when the store answers that it is missing or closed to these credentials.
   */
  async probe(): Promise<void> {
    const send = (abortSignal: AbortSignal) =>
      this.#client.send(new HeadBucketCommand({ Bucket: this.#bucket }), { abortSignal });
    await this.#call(send, (err) => {
      const status = httpStatus(err);
      if (isNotFound(err)) throw new BucketUnusableError(this.#bucket, 'missing');
      if (status === 403 || status === 401) throw new BucketUnusableError(this.#bucket, 'access-denied');
      throw err;
    });
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
      client: this.options.uploadClient ?? this.#client,
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
      throw this.#unavailable(err);
    }
    await done.catch((err: unknown) => {
      throw this.#unavailable(err);
    });
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
    const head = await this.#call(
      (abortSignal) => this.#client.send(new HeadObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal }),
      (err) => {
        if (isNotFound(err)) return null;
        throw err;
      },
    );
    return head && { size: head.ContentLength ?? 0, contentType: head.ContentType ?? 'application/octet-stream' };
  }

  async createReadStream(key: string, range: { start?: number; end?: number } = {}): Promise<Readable> {
    assertBlobKey(key);
    // Validate the arguments the same way as the disk adapter; the size check happens at S3.
    checkRange(range, Number.MAX_SAFE_INTEGER);
    const start = range.start ?? 0;
    const header = range.end !== undefined ? `bytes=${start}-${range.end}` : start > 0 ? `bytes=${start}-` : undefined;
    const get = new GetObjectCommand({ Bucket: this.#bucket, Key: key, Range: header });
    return this.#call(
      async (abortSignal) => (await this.#client.send(get, { abortSignal })).Body as Readable,
      (err) => {
        if (isNotFound(err)) throw new BlobNotFoundError(key);
        if (httpStatus(err) === 416) {
          // S3 answers 416 to any range on an empty object; start 0 of an empty blob is just empty.
          if (start === 0) return Readable.from([]);
          throw new RangeError(`start ${start} is beyond the blob`);
        }
        throw err;
      },
    );
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
    await this.#call((abortSignal) =>
      this.#client.send(new DeleteObjectCommand({ Bucket: this.#bucket, Key: key }), { abortSignal }),
    );
  }

  async deletePrefix(prefix: string): Promise<void> {
    assertBlobPrefix(prefix);
    let token: string | undefined;
    do {
      const list = new ListObjectsV2Command({ Bucket: this.#bucket, Prefix: prefix, ContinuationToken: token });
      const page = await this.#call((abortSignal) => this.#client.send(list, { abortSignal }));
      const keys = (page.Contents ?? []).flatMap((o) => (o.Key ? [{ Key: o.Key }] : []));
      if (keys.length > 0) {
        const remove = new DeleteObjectsCommand({ Bucket: this.#bucket, Delete: { Objects: keys, Quiet: true } });
        const res = await this.#call((abortSignal) => this.#client.send(remove, { abortSignal }));
        const e = res.Errors?.[0];
        if (res.Errors && e) {
          throw new Error(`S3 could not delete ${res.Errors.length} object(s), first ${e.Key}: ${e.Code} ${e.Message}`);
        }
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
  }

  signedDownloadUrl(key: string, options: SignedDownloadOptions): Promise<{ url: string; expiresAt: Date }> {
    return presignDownload(this.#signing(), key, options);
  }

  async listFolders(prefix: string): Promise<string[]> {
    assertBlobPrefix(prefix);
    const send = (list: ListObjectsV2Command) => this.#call((abortSignal) => this.#client.send(list, { abortSignal }));
    return listFolders(send, this.#bucket, prefix);
  }

  /**
   * Multipart uploads still open in the bucket that this process is not writing: a process killed
   * mid-upload leaves one (lib-storage aborts only on an error it lives to see), and S3 keeps its
   * parts, billed, until AbortMultipartUpload or the bucket's AbortIncompleteMultipartUpload rule.
   */
  async listUnfinishedWrites(): Promise<UnfinishedWrite[]> {
    if (!this.#listsUploads) return [];
    const writes: UnfinishedWrite[] = [];
    let keyMarker: string | undefined;
    let uploadIdMarker: string | undefined;
    do {
      const list = new ListMultipartUploadsCommand({
        Bucket: this.#bucket,
        KeyMarker: keyMarker,
        UploadIdMarker: uploadIdMarker,
      });
      const page = await this.#call(
        (abortSignal) => this.#client.send(list, { abortSignal }),
        (err) => {
          // Some S3-compatible stores lack it: the sweep says so once, and it is not asked again.
          if (!isNotImplemented(err)) throw err;
          this.#listsUploads = false;
          throw new UnsupportedStoreCallError(
            this.#storeName(),
            'ListMultipartUploads',
            String((err as Error).message),
          );
        },
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
    const abort = new AbortMultipartUploadCommand({ Bucket: this.#bucket, Key: write.key, UploadId: write.id });
    await this.#call(
      (abortSignal) => this.#client.send(abort, { abortSignal }),
      (err) => {
        // Finished or aborted meanwhile: nothing left to abort.
        if ((err as { name?: string }).name !== 'NoSuchUpload' && !isNotFound(err)) throw err;
      },
    );
  }

  #heldName(key: string): string {
    return `s3://${this.#bucket}/${key}`;
  }

  /** The store as a message names it: its endpoint's origin (never credentials or a path), or AWS S3. */
  #storeName(): string {
    return this.options.endpoint ? `the S3 store at ${new URL(this.options.endpoint).origin}` : 'AWS S3';
  }

  /** A presigned PutObject URL for the address clients use (`s3-presign.ts`). */
  signedUploadUrl(key: string, options: SignedUploadOptions): Promise<{ url: string; expiresAt: Date }> {
    return presignUpload(this.#signing(), key, options);
  }

  #signing(): Signing {
    return { client: this.#presign, bucket: this.#bucket, now: this.#now() };
  }

  async close(): Promise<void> {
    this.#client.destroy();
    if (this.#presign !== this.#client) this.#presign.destroy();
    this.options.uploadClient?.destroy();
  }
}
