import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';

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
  /**
   * Client for uploads (lib-storage sends buffered parts, so a socket silent past the timeout means
   * the store stopped answering); default: `client`.
   */
  uploadClient?: S3Client;
  /** Multipart part size; lib-storage buffers at most queueSize x partSize bytes per upload. */
  partSize?: number;
  queueSize?: number;
  /** Clock for URL signing; tests move it. */
  now?: () => number;
  /** DEPENDENCY_TIMEOUT_SECONDS: a call without an answer (headers, for a read) by then is abandoned. */
  timeoutMs?: number;
  /** Told of each failure to reach the store (`src/dependencies/monitor.ts`). */
  onUnavailable?: (err: unknown) => void;
}

export interface S3Settings {
  bucket: string;
  region: string;
  endpoint: string | undefined;
  accessKeyId: string | undefined;
  secretAccessKey: string | undefined;
  forcePathStyle: boolean;
}

/** Builds an S3Client from the service's storage settings; a connect waits at most `timeoutMs`. */
export function createS3Client(s: S3Settings, overrides: Partial<S3ClientConfig> = {}, timeoutMs = 5_000): S3Client {
  return new S3Client({
    requestHandler: { connectionTimeout: timeoutMs },
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
