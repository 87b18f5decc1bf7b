import type { JobDeps } from '../deps.ts';
import { ApiError } from '../../domain/errors.ts';
import { fetchMediaInfo, type MediaInfo } from '../../sources/ytdlp.ts';
import { YtdlpError, ytdlpErrorToApiError } from '../../sources/ytdlp-errors.ts';

export type MediaSite = 'video' | 'track';

/** Contract, "Limits": track jobs last at most 15 minutes. */
export const TRACK_MAX_SECONDS = 15 * 60;

/**
 * Longest media a site's jobs accept: videos follow the service's maximum duration (60 minutes by
 * default), tracks the contract's 15 minutes (or the service maximum, if an operator set it lower).
 */
export function maxDurationFor(deps: Pick<JobDeps, 'config'>, site: MediaSite): number {
  const serviceMax = deps.config.limits.maxDurationSeconds;
  return site === 'video' ? serviceMax : Math.min(TRACK_MAX_SECONDS, serviceMax);
}

export function minutesText(seconds: number): string {
  const m = Math.round((seconds / 60) * 10) / 10;
  return `${m} minute${m === 1 ? '' : 's'}`;
}

/**
 * Metadata (title, duration, thumbnail, channel) from yt-dlp before a job is created, so the
 * create response can report them and the credits. yt-dlp failures become the route's API errors
 * (private or removed media: VIDEO_NOT_FOUND / TRACK_NOT_FOUND; too long: AUDIO_TOO_LONG;
 * downloader trouble: 503).
 */
export async function fetchMetadataOrReject(
  deps: Pick<JobDeps, 'config' | 'log'>,
  url: string,
  site: MediaSite,
): Promise<MediaInfo> {
  try {
    return await fetchMediaInfo(url, {
      ytdlpPath: deps.config.ytdlp.path,
      timeoutMs: deps.config.ytdlp.timeoutMs,
      maxDurationSeconds: maxDurationFor(deps, site),
    });
  } catch (err) {
    if (!(err instanceof YtdlpError)) throw err;
    deps.log.warn({ site, url, kind: err.kind, detail: err.detail }, 'yt-dlp metadata failed');
    throw ytdlpErrorToApiError(err, site);
  }
}

/** The minimum duration rule of every job kind, applied to a duration the site reported. */
export function checkMinimumDuration(deps: Pick<JobDeps, 'config'>, seconds: number, site: MediaSite): void {
  const min = deps.config.limits.minDurationSeconds;
  if (seconds < min)
    throw new ApiError('AUDIO_TOO_SHORT', `The ${site} lasts ${seconds.toFixed(1)} s; the minimum is ${min} s.`);
}
