import type { DeliveryBody, JobSummaryBody } from '../../src/contract/dashboard.ts';

/** What a job is doing, in words (the API's `progressPhase`). */
export const PHASE_WORDS: Record<JobSummaryBody['phase'], string> = {
  queued: 'Waiting in the queue',
  downloading: 'Downloading the audio',
  loading_model: 'Loading the model',
  separating: 'Separating the stems',
  cleaning: 'Cleaning the voice',
  encoding: 'Encoding the files',
  analysing: 'Finding the tempo and key',
  uploading: 'Saving the files',
  completed: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
  expired: 'Files deleted (expired)',
};

/** A delivery's outcome, as a person reads it. */
export function deliveryWords(d: Pick<DeliveryBody, 'outcome' | 'statusCode' | 'error'>): string {
  switch (d.outcome) {
    case 'waiting':
      return 'Waiting to be sent';
    case 'sending':
      return 'Sending';
    case 'delivered':
      return `Delivered (HTTP ${d.statusCode})`;
    case 'failed':
      if (d.statusCode !== null) return `Failed: the receiver answered HTTP ${d.statusCode}`;
      return d.error?.includes('timed out') || d.error?.includes('timeout')
        ? 'Failed: no answer within the time limit'
        : 'Failed: the receiver could not be reached';
    case 'not-sent':
      return 'Not sent (webhook disabled or deleted, or job gone)';
  }
}

export const EVENT_WORDS: Record<string, string> = {
  'job.completed': 'Job completed',
  'job.failed': 'Job failed',
  test: 'Test event',
};

export const OUTPUT_TYPE_WORDS: Record<string, string> = {
  BOTH: 'Vocals + instrumental',
  VOCALS: 'Vocals only',
  INSTRUMENTAL: 'Instrumental only',
  FOUR_STEMS: 'Four stems (vocals, drums, bass, other)',
  SIX_STEMS: 'Six stems (+ guitar, piano)',
};

export const QUALITY_WORDS: Record<string, string> = { FAST: 'Fast', BALANCED: 'Balanced', BEST: 'Best' };

/**
 * A failed job's reason in plain words, from its stable code; the server's own message (which can
 * quote a tool such as ffmpeg) stays available beside it as the details.
 */
export function failureWords(code: string | null): string {
  switch (code) {
    case 'JOB_CANCELLED':
      return 'You cancelled this job; its credits were released.';
    case 'JOB_TIMEOUT':
      return 'The job took too long and was stopped; its credits were released.';
    case 'AUDIO_NOT_DECODABLE':
    case 'UNSUPPORTED_FORMAT':
      return 'The audio could not be read. Try another file or format; its credits were released.';
    case 'VIDEO_NOT_FOUND':
    case 'TRACK_NOT_FOUND':
      return 'The video or track is private or unavailable; its credits were released.';
    default:
      return 'The job failed after several attempts; its credits were released.';
  }
}
