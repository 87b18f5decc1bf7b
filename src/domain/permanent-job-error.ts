/**
 * A failure that retrying cannot fix (the input is not audio, the video is private, the track is
 * too long, a model is not installed): the job fails at once instead of spending its retries.
 * Declared here, below the job runner, so that the engines can raise it too.
 */
export class PermanentJobError extends Error {
  /** `errorDetails.code` of the failed job. */
  readonly code: string;
  constructor(message: string, code = 'PROCESSING_FAILED') {
    super(message);
    this.code = code;
  }
}
