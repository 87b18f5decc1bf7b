import type { JobRow } from '../store/jobs.ts';
import type { BlobStore } from '../storage/blob-store.ts';
import { completedResults } from './outputs.ts';
import { publicOptions } from './present-stem-job.ts';

/**
 * What video and track jobs keep in `input_json`. The first three fields are the ones every job
 * kind has (the separation stage reads `fileName` to name the outputs); they are filled in for real
 * by the download stage. `downloadUrl` is the canonical address handed to yt-dlp: never what the
 * user typed.
 */
interface MediaInputBase {
  fileName: string;
  /** Credits (whole seconds) of the audio: from metadata at creation, from the probe after download. */
  durationSeconds: number;
  /** 0 until downloaded. */
  fileSizeBytes: number;
  downloadUrl: string;
}

export interface VideoJobInput extends MediaInputBase {
  videoId: string;
  videoTitle: string;
  videoDuration: number;
  videoUrl: string;
  videoThumbnail: string;
  channelName: string;
}

export interface TrackJobInput extends MediaInputBase {
  trackId: string;
  trackTitle: string | null;
  trackDuration: number | null;
  trackDurationEstimated: boolean;
  trackArtwork: string;
  artistName: string;
  trackUrl: string;
}

export const videoInput = (row: JobRow) => JSON.parse(row.input_json) as VideoJobInput;
export const trackInput = (row: JobRow) => JSON.parse(row.input_json) as TrackJobInput;

async function common(row: JobRow, store: BlobStore) {
  // Every read signs fresh 1-hour links (contract, "Output entry").
  const { audioMetadata, outputs } = await completedResults(row, store);
  return {
    id: row.id,
    status: row.status,
    createdAt: row.created_at,
    progress: row.progress,
    audioMetadata,
    completedAt: row.completed_at,
    outputs,
    errorMessage: row.error_message,
  };
}

/** Video detail (GET /video-jobs/{id}, and each item of GET /video-jobs). */
export async function presentVideoJob(row: JobRow, store: BlobStore) {
  const input = videoInput(row);
  return {
    ...(await common(row, store)),
    videoId: input.videoId,
    videoTitle: input.videoTitle,
    videoDuration: input.videoDuration,
    videoThumbnail: input.videoThumbnail,
    channelName: input.channelName,
    creditsRequired: row.credits_required ?? input.durationSeconds,
    creditsCharged: row.credits_charged ?? 0,
    options: publicOptions(row),
  };
}

/** Track detail (GET /track-jobs/{id}, and each item of GET /track-jobs). */
export async function presentTrackJob(row: JobRow, store: BlobStore) {
  const input = trackInput(row);
  const settled = row.status === 'COMPLETED' || row.status === 'FAILED' || row.status === 'EXPIRED';
  return {
    ...(await common(row, store)),
    trackId: input.trackId,
    trackTitle: input.trackTitle,
    trackDuration: input.trackDuration,
    trackDurationEstimated: input.trackDurationEstimated,
    trackArtwork: input.trackArtwork,
    artistName: input.artistName,
    creditsRequired: row.credits_required,
    creditsCharged: settled ? (row.credits_charged ?? 0) : null,
  };
}

/**
 * The kind-specific `data.input` object of a webhook payload (contract, "Events / Payload"), for
 * the webhook delivery code: video jobs carry videoTitle/videoDuration/videoUrl/videoVideoId,
 * track jobs the same shape for the track. Null for other kinds.
 */
export function mediaWebhookInput(row: JobRow) {
  if (row.kind === 'video') {
    const i = videoInput(row);
    return { videoTitle: i.videoTitle, videoDuration: i.videoDuration, videoUrl: i.videoUrl, videoVideoId: i.videoId };
  }
  if (row.kind === 'track') {
    const i = trackInput(row);
    return { trackTitle: i.trackTitle, trackDuration: i.trackDuration, trackUrl: i.trackUrl, trackId: i.trackId };
  }
  return null;
}
