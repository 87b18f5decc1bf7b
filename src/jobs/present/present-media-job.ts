import type { JobRow } from '../../store/jobs.ts';
import type { BlobStore } from '../../storage/blob-store.ts';
import { completedResults } from '../outputs/outputs.ts';
import { publicOptions } from './present-stem-job.ts';
import { readJobOf, readMetadata } from '../read-job.ts';
import { presentProgress } from './present-progress.ts';
import type { TrackJobInput, VideoJobInput } from '../payloads.ts';

/** The video's own fields, as the create answer and every read show them. */
export function videoFields(input: VideoJobInput) {
  return {
    videoId: input.videoId,
    videoTitle: input.videoTitle,
    videoDuration: input.videoDuration,
    videoThumbnail: input.videoThumbnail,
    channelName: input.channelName,
    youtubeUrl: input.videoUrl,
  };
}

/** The track's own fields, as the create answer and every read show them. */
export function trackFields(input: TrackJobInput) {
  return {
    trackId: input.trackId,
    trackTitle: input.trackTitle,
    trackDuration: input.trackDuration,
    trackDurationEstimated: input.trackDurationEstimated,
    trackArtwork: input.trackArtwork,
    artistName: input.artistName,
    soundcloudUrl: input.trackUrl,
  };
}

async function common(row: JobRow, blobs: BlobStore) {
  // Every read signs fresh 1-hour links (contract, "Output entry").
  const { audioMetadata, outputs } = await completedResults(row, blobs);
  return {
    id: row.id,
    status: row.status,
    createdAt: row.created_at,
    progress: row.progress,
    audioMetadata,
    completedAt: row.completed_at,
    outputs,
    errorMessage: row.error_message,
    ...presentProgress(row),
    metadata: readMetadata(row),
  };
}

/** Video detail (GET /video-jobs/{id}, and each item of GET /video-jobs). */
export async function presentVideoJob(row: JobRow, blobs: BlobStore) {
  const job = readJobOf(row, 'video');
  const { input } = job;
  return {
    ...(await common(row, blobs)),
    ...videoFields(input),
    creditsRequired: row.credits_required ?? input.billedSeconds,
    creditsCharged: row.credits_charged ?? 0,
    options: publicOptions(job),
  };
}

/** Track detail (GET /track-jobs/{id}, and each item of GET /track-jobs). */
export async function presentTrackJob(row: JobRow, blobs: BlobStore) {
  const { input } = readJobOf(row, 'track');
  const settled = row.status === 'COMPLETED' || row.status === 'FAILED' || row.status === 'EXPIRED';
  return {
    ...(await common(row, blobs)),
    ...trackFields(input),
    creditsRequired: row.credits_required,
    creditsCharged: settled ? (row.credits_charged ?? 0) : null,
  };
}
