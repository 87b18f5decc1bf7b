import type { JobSummaryBody, JobViewBody } from '../contract/dashboard.ts';
import { DOWNLOAD_URL_TTL_SECONDS, type StoredOutputs } from '../jobs/outputs.ts';
import { trackInput, videoInput } from '../jobs/present-media-job.ts';
import { jobOptions } from '../jobs/present-stem-job.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobRow } from '../store/jobs.ts';

interface AnyInput {
  fileName?: string;
  durationSeconds?: number;
}

function metadata(row: JobRow): { bpm: number | null; key: string | null } | null {
  if (row.status !== 'COMPLETED' || !row.audio_metadata_json) return null;
  return JSON.parse(row.audio_metadata_json) as { bpm: number | null; key: string | null };
}

/** The title a person knows the job by: the video or track title, else the file name. */
function title(row: JobRow): string {
  const input = JSON.parse(row.input_json) as AnyInput;
  if (row.kind === 'video') return videoInput(row).videoTitle || input.fileName || row.id;
  if (row.kind === 'track') return trackInput(row).trackTitle || input.fileName || row.id;
  return input.fileName || row.id;
}

/** One row of the unified jobs list; every kind has the same fields. */
export function presentSummary(row: JobRow): JobSummaryBody {
  const input = JSON.parse(row.input_json) as AnyInput;
  const meta = metadata(row);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    progress: row.progress,
    title: title(row),
    // Credits are whole seconds; 0 means "not known yet" for a track whose duration is unknown.
    durationSeconds: input.durationSeconds ? Math.ceil(input.durationSeconds) : null,
    creditsCharged: row.credits_charged,
    bpm: meta?.bpm ?? null,
    key: meta?.key ?? null,
    createdAt: row.created_at,
    completedAt: row.completed_at,
  };
}

/**
 * Links to this site are made relative, so the browser fetches them from the origin it is on (a
 * local instance reached as localhost while PUBLIC_URL says 127.0.0.1) and `media-src 'self'` holds.
 */
export function relativeToSite(url: string, siteUrl: string): string {
  return url.startsWith(`${siteUrl}/`) ? url.slice(siteUrl.length) : url;
}

const formatOf = (fileName: string) => (fileName.split('.').pop() ?? '').toUpperCase();

async function signedOutputs(row: JobRow, store: BlobStore, site: string): Promise<JobViewBody['outputs']> {
  if (row.status !== 'COMPLETED' || !row.outputs_json) return {};
  const stored = JSON.parse(row.outputs_json) as StoredOutputs;
  const entries = await Promise.all(
    Object.entries(stored).map(async ([name, o]) => {
      const [{ url }, stat] = await Promise.all([
        store.signedDownloadUrl(o.key, {
          fileName: o.fileName,
          contentType: o.contentType,
          expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
        }),
        store.stat(o.key),
      ]);
      const entry = { url: relativeToSite(url, site), fileName: o.fileName, format: formatOf(o.fileName) };
      return [name, stat ? { ...entry, sizeBytes: stat.size } : entry] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** A signed link to the original audio of a denoise job (the A/B player), while it is stored. */
async function inputUrl(row: JobRow, store: BlobStore, site: string): Promise<string | null> {
  if (row.kind !== 'denoise' || !row.source_key || row.status === 'EXPIRED') return null;
  const stat = await store.stat(row.source_key);
  if (!stat) return null;
  const { url } = await store.signedDownloadUrl(row.source_key, {
    fileName: title(row).slice(0, 255),
    contentType: stat.contentType,
    expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
  });
  return relativeToSite(url, site);
}

function sourceOf(row: JobRow): { thumbnail: string | null; sourceUrl: string | null } {
  if (row.kind === 'video') {
    const i = videoInput(row);
    return { thumbnail: i.videoThumbnail || null, sourceUrl: i.videoUrl || null };
  }
  if (row.kind === 'track') {
    const i = trackInput(row);
    return { thumbnail: i.trackArtwork || null, sourceUrl: i.trackUrl || null };
  }
  return { thumbnail: null, sourceUrl: null };
}

/** The job page: the summary plus options, source, and freshly signed links. */
export async function presentView(row: JobRow, store: BlobStore, site: string): Promise<JobViewBody> {
  const o = jobOptions(row);
  const [outputs, input] = await Promise.all([signedOutputs(row, store, site), inputUrl(row, store, site)]);
  return {
    ...presentSummary(row),
    // Denoise jobs have only a format: the separation options are null for them.
    options: {
      outputType: o.outputType ?? null,
      quality: o.quality ?? null,
      outputFormat: o.outputFormat,
      denoiseVocals: o.denoiseVocals ?? false,
    },
    errorMessage: row.error_message,
    audioMetadata: metadata(row),
    ...sourceOf(row),
    input: { url: input },
    outputs,
  };
}
