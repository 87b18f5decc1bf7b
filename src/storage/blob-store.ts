import type { Readable } from 'node:stream';
import type { StorageCapabilities } from './backends.ts';

/**
 * The blob-store port. Keys follow the grammar in `blob-key.ts`; every method rejects a bad key
 * with InvalidBlobKeyError before touching storage. Adapters: `disk-store.ts` (embedded default,
 * signed URLs served by this API) and `s3-store.ts` (scale-out, presigned S3 URLs). The same
 * conformance suite (`test/storage-conformance.test.ts`) runs against both.
 */
export interface BlobStore {
  /** What this adapter can do (`backends.ts`): callers ask this, never the backend's name. */
  readonly capabilities: StorageCapabilities;

  /**
   * Streams `body` into `key`, replacing any previous blob only once the whole body has arrived.
   * With `maxBytes`, reading stops as soon as the body passes the limit and the promise rejects with
   * BlobTooLargeError; nothing is stored and any previous blob at `key` is untouched. On that error
   * `body` is left paused and not destroyed, so an HTTP handler can still answer; the caller decides
   * whether to drain it or destroy it. Any other failure of `body` rejects with that error.
   */
  put(key: string, body: Readable, options: PutOptions): Promise<{ size: number }>;

  /** Stores a local file under `key` (for worker outputs). */
  putFile(key: string, localPath: string, options: { contentType: string }): Promise<{ size: number }>;

  /** Size and content type of `key`, or null when there is no such blob. */
  stat(key: string): Promise<BlobStat | null>;

  /**
   * A stream of the blob, or of the inclusive byte range `start..end` (both optional, like
   * `fs.createReadStream`). Rejects with BlobNotFoundError when there is no such blob.
   */
  createReadStream(key: string, range?: { start?: number; end?: number }): Promise<Readable>;

  /** Copies the blob to a local file (workers hand local files to ffmpeg). BlobNotFoundError if absent. */
  downloadToFile(key: string, localPath: string): Promise<void>;

  /** Removes `key`; removing a missing key is not an error. */
  delete(key: string): Promise<void>;

  /** Removes every blob whose key starts with `prefix`, which must end with "/" (`jobs/<id>/`). */
  deletePrefix(prefix: string): Promise<void>;

  /**
   * The names of the folders right under `prefix` (ending with "/") that hold at least one blob:
   * `listFolders('jobs/')` lists the ids of the jobs with files. For the orphan sweep.
   */
  listFolders(prefix: string): Promise<string[]>;

  /**
   * A URL anyone holding it can GET until `expiresAt`, answered with `Content-Disposition:
   * attachment` naming `fileName` and with `contentType`. Does not check that the blob exists.
   */
  signedDownloadUrl(key: string, options: SignedDownloadOptions): Promise<{ url: string; expiresAt: Date }>;

  /**
   * Writes begun and never finished that no write of this process holds: S3 multipart uploads
   * (ListMultipartUploads), the disk store's temp files. What a killed process left behind, or a
   * write another live process is making now: the orphan sweep (`src/startup-sweep.ts`) decides.
   */
  listUnfinishedWrites(): Promise<UnfinishedWrite[]>;

  /** Abandons one (S3 AbortMultipartUpload; the disk store removes the temp file). */
  abortUnfinishedWrite(write: UnfinishedWrite): Promise<void>;

  /**
   * Present only where clients can PUT a file straight into the store (S3): a URL anyone holding it
   * can PUT `key` to until `expiresAt`, with `contentType` (and, when given, exactly `contentLength`
   * bytes) bound into its signature, so the store itself refuses another type, size or a late PUT.
   * The bytes never pass through this service; nothing about them is checked until they are read.
   */
  signedUploadUrl?(key: string, options: SignedUploadOptions): Promise<{ url: string; expiresAt: Date }>;

  /**
   * Present where the store is another service (S3): resolves when its bucket answers, else rejects
   * within DEPENDENCY_TIMEOUT_SECONDS (DependencyUnavailableError, or BucketUnusableError when the
   * store answers that the bucket is missing or closed). The start-up check and `/readyz` ask it.
   */
  probe?(): Promise<void>;

  /** Releases connections or timers held by the adapter. */
  close(): Promise<void>;
}

/** A write begun and not finished (`listUnfinishedWrites`). */
export interface UnfinishedWrite {
  /** The adapter's handle: an S3 upload id, a temp file's name. */
  id: string;
  /** The blob key being written, when the adapter knows it (S3); null for the disk store's temp files. */
  key: string | null;
  /** When it began (S3's `Initiated`), or was last written to (a temp file's mtime). */
  startedAt: Date;
}

export interface PutOptions {
  contentType: string;
  /** Reject with BlobTooLargeError once more than this many bytes have arrived. */
  maxBytes?: number;
}

export interface BlobStat {
  size: number;
  contentType: string;
}

export interface SignedDownloadOptions {
  /** The file name the browser should save as; any Unicode, at most 255 characters. */
  fileName: string;
  contentType: string;
  expiresInSeconds: number;
}

export interface SignedUploadOptions {
  contentType: string;
  /** When known, the exact body size the store accepts (bound into the signature). */
  contentLength?: number;
  expiresInSeconds: number;
}

/** The longest lifetime a signed download URL may have (S3's SigV4 maximum, 7 days). */
export const MAX_SIGNED_URL_SECONDS = 7 * 24 * 3600;

/** Shared argument checks for `signedDownloadUrl`, so both adapters refuse the same inputs. */
export function assertSignedDownloadOptions(o: SignedDownloadOptions): void {
  if (typeof o.fileName !== 'string' || o.fileName.length === 0 || o.fileName.length > 255) {
    throw new TypeError('fileName must be 1 to 255 characters');
  }
  if (typeof o.contentType !== 'string' || !/^[\x21-\x7e]+(?:; ?[\x20-\x7e]+)?$/.test(o.contentType)) {
    throw new TypeError('contentType must be a printable ASCII media type');
  }
  if (!Number.isInteger(o.expiresInSeconds) || o.expiresInSeconds < 1 || o.expiresInSeconds > MAX_SIGNED_URL_SECONDS) {
    throw new TypeError(`expiresInSeconds must be an integer from 1 to ${MAX_SIGNED_URL_SECONDS}`);
  }
}

/** Checks `maxBytes` once for both adapters. */
export function assertPutOptions(o: PutOptions): void {
  if (typeof o.contentType !== 'string' || !/^[\x21-\x7e]+(?:; ?[\x20-\x7e]+)?$/.test(o.contentType)) {
    throw new TypeError('contentType must be a printable ASCII media type');
  }
  if (o.maxBytes !== undefined && (!Number.isSafeInteger(o.maxBytes) || o.maxBytes < 0)) {
    throw new TypeError('maxBytes must be a non-negative integer');
  }
}

/** Validates an inclusive byte range against the blob size; both adapters apply the same rules. */
export function checkRange(
  range: { start?: number; end?: number },
  size: number,
): { start: number; end: number | undefined } {
  const start = range.start ?? 0;
  const end = range.end;
  if (!Number.isSafeInteger(start) || start < 0) throw new RangeError('start must be a non-negative integer');
  if (end !== undefined && (!Number.isSafeInteger(end) || end < start))
    throw new RangeError('end must be an integer >= start');
  if (start > 0 && start >= size) throw new RangeError(`start ${start} is beyond the blob's ${size} bytes`);
  return { start, end: end === undefined ? undefined : Math.min(end, Math.max(size - 1, 0)) };
}
