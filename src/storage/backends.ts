/**
 * The blob-store backends and what each can do, declared once. The configuration reads it before
 * any adapter exists (a scale-out deployment needs storage every process shares); each adapter
 * reports the same through `BlobStore.capabilities`, so no caller compares backend names.
 */
export interface BackendDeclaration {
  /** Every process of a deployment, on any host, sees the same blobs. */
  sharedBetweenProcesses: boolean;
  /** What an operator sets to choose it, for configuration messages. */
  setting: string;
  /** What it is, in a configuration message. */
  description: string;
}

export const STORAGE_BACKENDS = {
  disk: { sharedBetweenProcesses: false, setting: 'STORAGE=disk', description: 'local disk' },
  s3: { sharedBetweenProcesses: true, setting: 'STORAGE=s3 with S3_BUCKET', description: 'S3-compatible storage' },
} as const satisfies Record<string, BackendDeclaration>;

export type StorageBackendName = keyof typeof STORAGE_BACKENDS;
export const STORAGE_BACKEND_NAMES = Object.keys(STORAGE_BACKENDS) as [StorageBackendName, ...StorageBackendName[]];

/** What a blob store can do, as the adapter in use reports it. */
export interface StorageCapabilities {
  sharedBetweenProcesses: boolean;
  /**
   * Origins its signed download URLs point at when they are not this site (the dashboard's CSP
   * allows them for media and fetch); empty when this API serves the downloads itself.
   */
  downloadOrigins: readonly string[];
}

/** The blob store a configuration chooses, with its settings (`src/config.ts` parses them). */
export type StorageSettings =
  | { kind: 'disk'; root: string }
  | {
      kind: 's3';
      bucket: string;
      region: string;
      endpoint: string | undefined;
      /** Where clients reach the bucket when not at `endpoint` (a compose network name): download links are signed for it. */
      publicEndpoint: string | undefined;
      accessKeyId: string | undefined;
      secretAccessKey: string | undefined;
      forcePathStyle: boolean;
    };
