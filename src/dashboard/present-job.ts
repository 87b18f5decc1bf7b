import type { JobSummaryBody, JobViewBody } from '../contract/dashboard.ts';
import { DOWNLOAD_URL_TTL_SECONDS, shownFileName } from '../jobs/outputs/outputs.ts';
import { presenterOf } from '../jobs/present/job-presenters.ts';
import { jobTitle } from '../jobs/present/job-title.ts';
import { presentProgress } from '../jobs/present/present-progress.ts';
import { readAudioMetadata, readJob, readOutputs, type TypedJob } from '../jobs/read-job.ts';
import type { RunningFacts } from '../jobs/present/running-facts.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import type { JobRow } from '../store/jobs.ts';

/** One row of the unified jobs list; every kind has the same fields. `facts`: `runningFacts` of the row. */
export function presentSummary(row: JobRow, facts: RunningFacts): JobSummaryBody {
  const job = readJob(row);
  const meta = readAudioMetadata(row);
  return {
    id: row.id,
    kind: row.kind,
    status: row.status,
    progress: row.progress,
    phase: presentProgress(row).progressPhase,
    title: jobTitle(row),
    // Billed whole seconds; 0 means "not known yet" for a track whose duration is unknown.
    durationSeconds: job.input.billedSeconds ? Math.ceil(job.input.billedSeconds) : null,
    creditsCharged: row.credits_charged,
    ...facts,
    bpm: meta?.bpm ?? null,
    key: meta?.key ?? null,
    tempoConfidence: meta?.tempoConfidence ?? null,
    keyConfidence: meta?.keyConfidence ?? null,
    createdAt: row.created_at,
    completedAt: row.completed_at,
    kept: row.kept_at !== null,
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

async function signedOutputs(row: JobRow, blobs: BlobStore, site: string): Promise<JobViewBody['outputs']> {
  const stored = row.status === 'COMPLETED' ? readOutputs(row) : null;
  if (!stored) return {};
  const entries = await Promise.all(
    Object.entries(stored).map(async ([name, o]) => {
      const fileName = shownFileName(row, name, o);
      const [{ url }, stat] = await Promise.all([
        blobs.signedDownloadUrl(o.key, {
          fileName,
          contentType: o.contentType,
          expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
        }),
        blobs.stat(o.key),
      ]);
      const entry = { url: relativeToSite(url, site), fileName, format: formatOf(fileName) };
      return [name, stat ? { ...entry, sizeBytes: stat.size } : entry] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/** A signed link to the original audio of a denoise job (the A/B player), while it is stored. */
async function inputUrl(job: TypedJob, blobs: BlobStore, site: string): Promise<string | null> {
  const { row } = job;
  if (!presenterOf(job).playsInput || !row.source_key || row.status === 'EXPIRED') return null;
  const stat = await blobs.stat(row.source_key);
  if (!stat) return null;
  const { url } = await blobs.signedDownloadUrl(row.source_key, {
    fileName: presenterOf(job).title(job).slice(0, 255),
    contentType: stat.contentType,
    expiresInSeconds: DOWNLOAD_URL_TTL_SECONDS,
  });
  return relativeToSite(url, site);
}

/** The job page: the summary plus options, source, and freshly signed links. */
export async function presentView(
  row: JobRow,
  facts: RunningFacts,
  blobs: BlobStore,
  site: string,
): Promise<JobViewBody> {
  const job = readJob(row);
  const [outputs, input] = await Promise.all([signedOutputs(row, blobs, site), inputUrl(job, blobs, site)]);
  return {
    ...presentSummary(row, facts),
    options: presenterOf(job).options(job),
    errorMessage: row.error_message,
    errorCode: row.status === 'FAILED' ? (row.error_code ?? 'PROCESSING_FAILED') : null,
    expiresAt: row.expires_at,
    ...presenterOf(job).source(job),
    input: { url: input },
    outputs,
  };
}
