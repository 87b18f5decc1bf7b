/**
 * Errors of the blob-store port. They are plain errors, not API errors: the storage layer does not
 * know HTTP. Callers map them (an upload route turns BlobTooLargeError into FILE_TOO_LARGE, a
 * download route turns BlobNotFoundError into FILE_NOT_FOUND).
 */

/** A key or prefix that is not in the strict key grammar (see `blob-key.ts`). */
export class InvalidBlobKeyError extends Error {
  override readonly name = 'InvalidBlobKeyError';
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(`invalid blob key ${JSON.stringify(key.slice(0, 200))}: ${reason}`);
  }
}

/** The body passed to `put` grew past `maxBytes`; nothing was stored. */
export class BlobTooLargeError extends Error {
  override readonly name = 'BlobTooLargeError';
  constructor(readonly maxBytes: number) {
    super(`the body exceeds the limit of ${maxBytes} bytes`);
  }
}

/** Reading a key that does not exist. `stat` answers null instead of throwing this. */
export class BlobNotFoundError extends Error {
  override readonly name = 'BlobNotFoundError';
  constructor(readonly key: string) {
    super(`no blob at ${JSON.stringify(key)}`);
  }
}

/** The store answers, but its bucket is missing or closed to these credentials (a start-up check). */
export class BucketUnusableError extends Error {
  override readonly name = 'BucketUnusableError';
  constructor(
    readonly bucket: string,
    readonly reason: 'missing' | 'access-denied',
  ) {
    super(reason === 'missing' ? `the bucket ${bucket} does not exist` : `access to the bucket ${bucket} is denied`);
  }
}

/** The store lacks a call the service uses (some S3-compatible stores implement a subset). */
export class UnsupportedStoreCallError extends Error {
  override readonly name = 'UnsupportedStoreCallError';
  constructor(
    readonly store: string,
    readonly call: string,
    detail: string,
  ) {
    super(`${store} does not implement ${call}: ${detail}`);
  }
}
