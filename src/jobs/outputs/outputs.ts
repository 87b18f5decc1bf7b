import type { z } from 'zod';
import type { BlobStore } from '../../storage/blob-store.ts';
import type { JobRow } from '../../store/jobs.ts';
import type { StoredOutputSchema } from '../payloads.ts';
import { readAudioMetadata, readOutputs } from '../read-job.ts';

/** A stored output: where it lives and how it downloads. */
export type StoredOutput = z.infer<typeof StoredOutputSchema>;
export type StoredOutputs = Record<string, StoredOutput>;

/** Download links are valid one hour (contract); every read of a job signs fresh ones. */
export const DOWNLOAD_URL_TTL_SECONDS = 3600;

/** Signs every output of a completed job, valid `seconds` (one hour, the contract's, by default). */
export async function signOutputs(
  blobs: BlobStore,
  row: JobRow,
  seconds = DOWNLOAD_URL_TTL_SECONDS,
): Promise<Record<string, { url: string; expiresAt: string }> | null> {
  const stored = readOutputs(row);
  if (!stored) return null;
  const entries = await Promise.all(
    Object.entries(stored).map(async ([stem, o]) => {
      const { url, expiresAt } = await blobs.signedDownloadUrl(o.key, {
        fileName: o.fileName,
        contentType: o.contentType,
        expiresInSeconds: seconds,
      });
      return [stem, { url, expiresAt: expiresAt.toISOString() }] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** A name made safe for a header and a file system: what a song's name may keep in a file name. */
function safeBase(name: string): string {
  return name.replace(/[^\w .()-]+/g, '_').trim() || 'audio';
}

/** `<song>-<stem>.<ext>`: the song's name without its extension, made safe for a header. */
export function outputFileName(inputFileName: string, stem: string, ext: string): string {
  return `${safeBase(inputFileName.replace(/\.[A-Za-z0-9]{1,8}$/, ''))}-${stem}.${ext}`;
}

/**
 * The name an output downloads under in the dashboard (its links and the ZIP's entries): after the
 * name its owner gave the job, once renamed (`<name>-<stem>.<ext>`), else the stored one.
 */
export function shownFileName(row: Pick<JobRow, 'name'>, stem: string, stored: StoredOutput): string {
  if (!row.name) return stored.fileName;
  const ext = stored.fileName.split('.').pop() ?? 'bin';
  return `${safeBase(row.name)}-${stem}.${ext}`.slice(-255);
}

/**
 * What a job reports once COMPLETED: its BPM/key and freshly signed output links; both null in
 * any other state (outputs and metadata are available only when COMPLETED, contract).
 */
export async function completedResults(row: JobRow, blobs: BlobStore) {
  if (row.status !== 'COMPLETED') return { audioMetadata: null, outputs: null };
  return {
    audioMetadata: readAudioMetadata(row),
    outputs: await signOutputs(blobs, row),
  };
}
