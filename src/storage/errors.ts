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
