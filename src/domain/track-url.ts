import { ApiError } from './errors.ts';
import { parseLooseHttpUrl } from './video-url.ts';

/**
 * The track-site address forms `/track-jobs` accepts (API.md, "Track jobs"): the artist/track
 * path (`https://soundcloud.com/<artist>/<track>`), the mobile host (`m.soundcloud.com`) and the
 * short-code form (`https://on.soundcloud.com/<code>`). Playlists (sets), user pages, the site's
 * own pages and private share links (`/<artist>/<track>/s-<token>`) are refused with
 * INVALID_TRACK_URL naming the problem. Pure: no I/O.
 *
 * A short code only says where to go: it may redirect to a playlist or a private track, which the
 * downloader detects from yt-dlp's answer (see `src/sources/ytdlp.ts`).
 */
export interface ParsedTrackUrl {
  kind: 'track' | 'short';
  /** `https://soundcloud.com/<artist>/<track>` (query dropped) or `https://on.soundcloud.com/<code>`. */
  canonicalUrl: string;
  /**
   * `<artist>/<track>` for the path form; null for a short code, whose target is only known once
   * yt-dlp resolves it (its numeric `id` is then the better track id for the API response).
   */
  trackId: string | null;
  shortCode: string | null;
}

const TRACK_HOSTS = new Set(['soundcloud.com', 'www.soundcloud.com', 'm.soundcloud.com']);
const SHORT_HOST = 'on.soundcloud.com';
/** Permalinks are lower-case letters, digits, "-" and "_"; upper case is tolerated (the site folds it). */
const PERMALINK = /^[A-Za-z0-9_-]{1,255}$/;
const SHORT_CODE = /^[A-Za-z0-9]{1,64}$/;

/** First path segments that are the site's own pages, not artists. */
const SITE_PAGES = new Set([
  'discover',
  'search',
  'you',
  'stations',
  'charts',
  'upload',
  'settings',
  'messages',
  'notifications',
  'feed',
  'stream',
  'pages',
  'pro',
  'jobs',
  'terms-of-use',
  'mobile',
  'popular',
  'tags',
  'people',
  'groups',
  'signin',
  'logout',
  'imprint',
  'creators',
  'artists',
  'premieres',
  'connect',
  'apps',
]);
/** Second segments that are a user's sub-pages, not tracks. */
const USER_PAGES = new Set([
  'likes',
  'tracks',
  'albums',
  'sets',
  'reposts',
  'followers',
  'following',
  'popular-tracks',
  'comments',
  'spotlight',
  'toptracks',
  'playlists',
  'stations',
  'info',
]);

function invalid(problem: string): ApiError {
  return new ApiError(
    'INVALID_TRACK_URL',
    `${problem}. Accepted forms: https://soundcloud.com/<artist>/<track>, https://m.soundcloud.com/<artist>/<track>, ` +
      'https://on.soundcloud.com/<code>.',
  );
}

function privateTrack(): ApiError {
  return new ApiError(
    'INVALID_TRACK_URL',
    'Private tracks are not supported: the address is a private share link (it ends in /s-<token>).',
  );
}

/** Parses a track address; throws ApiError INVALID_TRACK_URL naming the problem. */
export function parseTrackUrl(input: string): ParsedTrackUrl {
  if (typeof input !== 'string') throw invalid('The track address must be a string');
  const url = parseLooseHttpUrl(input, invalid);
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const segments = url.pathname.split('/').filter(Boolean);

  if (host === SHORT_HOST) {
    const [shortCode] = segments;
    if (segments.length !== 1 || shortCode === undefined || !SHORT_CODE.test(shortCode)) {
      throw invalid('A short address has exactly one path segment, the short code');
    }
    return {
      kind: 'short',
      trackId: null,
      shortCode,
      canonicalUrl: `https://${SHORT_HOST}/${shortCode}`,
    };
  }
  if (!TRACK_HOSTS.has(host)) throw invalid(`"${host}" is not a supported track site host`);
  if (url.searchParams.has('secret_token')) throw privateTrack();
  for (const s of segments) {
    if (!PERMALINK.test(s)) throw invalid(`"${s.slice(0, 60)}" is not a valid path segment of a track address`);
  }

  const [artist, track, third] = segments;
  if (!artist) throw invalid('The address is the site home page, not a track');
  if (SITE_PAGES.has(artist.toLowerCase())) throw invalid(`"/${artist}" is a site page, not a track`);
  if (!track) throw invalid('The address is a user page, not a track; use the address of a single track');
  const sub = track.toLowerCase();
  if (sub === 'sets' || sub === 'albums' || sub === 'playlists') {
    throw invalid(
      segments.length > 2
        ? 'Playlists (sets and albums) are not supported; use the address of a single track'
        : `"/${artist}/${track}" is a user's playlist list, not a track`,
    );
  }
  if (USER_PAGES.has(sub)) throw invalid(`"/${artist}/${track}" is a user's ${sub} page, not a track`);
  if (third !== undefined) {
    if (segments.length === 3 && /^s-[A-Za-z0-9]+$/.test(third)) throw privateTrack();
    throw invalid(`"/${segments.join('/')}" is not a track page`);
  }
  return {
    kind: 'track',
    trackId: `${artist}/${track}`,
    shortCode: null,
    canonicalUrl: `https://soundcloud.com/${artist}/${track}`,
  };
}
