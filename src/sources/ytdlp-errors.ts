import { ApiError, type ErrorCode } from '../domain/errors.ts';

/** Why a yt-dlp run failed. */
export type YtdlpFailure =
  | 'not-installed'
  | 'timeout'
  | 'aborted'
  | 'private'
  | 'unavailable'
  | 'geo-blocked'
  | 'login-required' // age gate, members-only, paid, or a "confirm you're not a bot" wall
  | 'too-long'
  | 'too-large'
  | 'live'
  | 'playlist'
  | 'unsupported-url'
  | 'network'
  | 'crash'
  | 'bad-output';

/** Failures another attempt may fix; the others are facts about the media. */
const RETRYABLE: ReadonlySet<YtdlpFailure> = new Set(['timeout', 'network', 'crash', 'bad-output']);

/** Message templates; `{media}` becomes "video", "track" or "media". */
const MESSAGES: Record<YtdlpFailure, string> = {
  'not-installed': 'The downloader (yt-dlp) is not installed on this server.',
  timeout: 'Downloading the {media} took too long and was stopped.',
  aborted: 'Downloading the {media} was cancelled.',
  private: 'The {media} is private.',
  unavailable: 'The {media} is unavailable: it may have been removed or never existed.',
  'geo-blocked': "The {media} is not available in this server's country (geo-blocked).",
  'login-required': 'The {media} requires signing in (age-restricted, members-only or paid), which is not supported.',
  'too-long': 'The {media} is longer than the maximum duration.',
  'too-large': 'The {media} is larger than the maximum file size.',
  live: 'Live streams cannot be imported; wait until the stream has ended.',
  playlist: 'The address leads to a playlist; use the address of a single {media}.',
  'unsupported-url': 'The downloader does not support this address.',
  network: 'The {media} site could not be reached; try again later.',
  crash: 'The downloader failed; it may need an update for this site.',
  'bad-output': 'The downloader produced no usable audio.',
};

export class YtdlpError extends Error {
  readonly retryable: boolean;

  constructor(
    readonly kind: YtdlpFailure,
    /** Operator-facing detail: the yt-dlp ERROR line, exit status, or the missing path. For logs. */
    readonly detail: string,
    message: string = MESSAGES[kind].replace('{media}', 'media'),
  ) {
    super(message);
    this.name = 'YtdlpError';
    this.retryable = RETRYABLE.has(kind);
  }
}

/** The last "ERROR:" line yt-dlp printed (its one-line summary of what went wrong). */
export function lastErrorLine(stderr: string): string | null {
  const lines = stderr.split(/\r?\n/).filter((l) => l.startsWith('ERROR:'));
  return lines.at(-1)?.trim() ?? null;
}

/**
 * Classifies a failed run from yt-dlp's stderr. The phrases are the site messages yt-dlp relays
 * (YouTube player responses, SoundCloud API errors) and yt-dlp's own (GeoRestrictedError,
 * UnsupportedError); ordered so that "Private video. Sign in if..." is private, not login.
 */
export function classifyYtdlpStderr(stderr: string): YtdlpFailure {
  const text = lastErrorLine(stderr) ?? stderr.slice(-2000);
  if (/ffmpeg|ffprobe|Traceback/i.test(text)) return 'crash';
  if (/private video|video is private|track is private|is private\b/i.test(text)) return 'private';
  if (
    /not (made this video )?available in your country|geo.?restrict|from your location|blocked it in your country/i.test(
      text,
    )
  ) {
    return 'geo-blocked';
  }
  if (
    /confirm your age|age.?restricted|inappropriate for some users|members.only|join this channel|requires payment|only available for registered users|login required|sign in to confirm|use --cookies|account.{0,20}required/i.test(
      text,
    )
  ) {
    return 'login-required';
  }
  if (/live event will begin|premieres? in|this live stream/i.test(text)) return 'live';
  if (/unsupported url|is not a valid url/i.test(text)) return 'unsupported-url';
  if (
    /video unavailable|is unavailable|not available|no longer available|has been removed|been terminated|does not exist|HTTP Error 404|HTTP Error 410|not found/i.test(
      text,
    )
  ) {
    return 'unavailable';
  }
  if (
    /urlopen error|timed out|HTTP Error (5\d\d|429|403)|Connection (reset|refused|aborted)|Temporary failure in name resolution|Remote end closed|IncompleteRead|SSL/i.test(
      text,
    )
  ) {
    return 'network';
  }
  return 'crash';
}

/**
 * The API error for a yt-dlp failure on a video or track route. Private, removed, geo-blocked and
 * sign-in-only media are all "not found" from this server's point of view (VIDEO_NOT_FOUND /
 * TRACK_NOT_FOUND, 404); server-side trouble (timeouts, crashes, a missing yt-dlp) is 503,
 * never a 400 that blames the user.
 */
export function ytdlpErrorToApiError(err: YtdlpError, site: 'video' | 'track'): ApiError {
  const message = MESSAGES[err.kind].replace('{media}', site);
  const specific = err.message !== MESSAGES[err.kind].replace('{media}', 'media') ? err.message : message;
  const notFound: ErrorCode = site === 'video' ? 'VIDEO_NOT_FOUND' : 'TRACK_NOT_FOUND';
  const badUrl: ErrorCode = site === 'video' ? 'INVALID_VIDEO_URL' : 'INVALID_TRACK_URL';
  switch (err.kind) {
    case 'private':
    case 'unavailable':
    case 'geo-blocked':
    case 'login-required':
      return new ApiError(notFound, message);
    case 'too-long':
      return new ApiError('AUDIO_TOO_LONG', specific.replace(/\bmedia\b/, site));
    case 'too-large':
      return new ApiError('FILE_TOO_LARGE', specific.replace(/\bmedia\b/, site));
    case 'live':
    case 'playlist':
    case 'unsupported-url':
      return new ApiError(badUrl, message);
    default:
      return new ApiError('SERVICE_UNAVAILABLE', message);
  }
}
