import { ApiError } from './errors.ts';

/**
 * The video-site address forms `/video-jobs` accepts (API.md, "Video jobs"): a watch address with
 * `v=<id>`, a short address, an embed address or a bare 11-character id; plus the common host
 * variants (mobile, music, no-cookie embeds, shorts and live paths). Everything else is refused
 * with INVALID_VIDEO_URL and a message naming the problem. Pure: no I/O.
 *
 * Only the canonical URL built here is ever handed to the downloader, so nothing the user typed
 * (extra query parameters, playlist ids, odd hosts) reaches yt-dlp.
 */
export interface ParsedVideoUrl {
  videoId: string;
  /** `https://www.youtube.com/watch?v=<id>` */
  canonicalUrl: string;
}

const VIDEO_ID = /^[A-Za-z0-9_-]{11}$/;
const MAX_INPUT_LENGTH = 2048;

/** Hosts serving watch/embed/shorts/live paths. */
const MAIN_HOSTS = new Set(['youtube.com', 'www.youtube.com', 'm.youtube.com', 'music.youtube.com']);
/** Privacy-enhanced embed hosts: embed paths only. */
const NOCOOKIE_HOSTS = new Set(['youtube-nocookie.com', 'www.youtube-nocookie.com']);
const SHORT_HOSTS = new Set(['youtu.be', 'www.youtu.be']);
/** Path prefixes whose next segment is the video id. */
const ID_PATHS = new Set(['embed', 'shorts', 'live']);

function invalid(problem: string): ApiError {
  return new ApiError(
    'INVALID_VIDEO_URL',
    `${problem}. Accepted forms: https://www.youtube.com/watch?v=<id>, https://youtu.be/<id>, ` +
      'https://www.youtube.com/embed/<id>, https://www.youtube.com/shorts/<id>, or the 11-character video id.',
  );
}

function checkId(id: string | null | undefined, where: string): string {
  if (!id) throw invalid(`The address has no video id ${where}`);
  if (!VIDEO_ID.test(id)) {
    throw invalid(`"${id.slice(0, 40)}" is not a video id (11 characters of letters, digits, "-" or "_")`);
  }
  return id;
}

/**
 * Parses user input into an absolute http(s) URL, adding `https://` to scheme-less input
 * such as `youtube.com/watch?v=...`. Shared with the track-address parser.
 */
export function parseLooseHttpUrl(input: string, invalidOf: (problem: string) => ApiError): URL {
  const text = input.trim();
  if (!text) throw invalidOf('The address is empty');
  if (text.length > MAX_INPUT_LENGTH) throw invalidOf(`The address is longer than ${MAX_INPUT_LENGTH} characters`);
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what this rejects
  if (/[\s\u0000-\u001f\u007f]/.test(text)) throw invalidOf('The address contains spaces or control characters');
  // A scheme is letters then ":" not followed by a digit ("youtube.com:443/..." is a port).
  const scheme = /^([a-z][a-z0-9+.-]*):(?!\d)/i.exec(text)?.[1]?.toLowerCase();
  if (scheme && scheme !== 'http' && scheme !== 'https') {
    throw invalidOf(`"${scheme}:" addresses are not accepted; use an http or https address`);
  }
  const withScheme = scheme ? text : text.startsWith('//') ? `https:${text}` : `https://${text}`;
  let url: URL;
  try {
    url = new URL(withScheme);
  } catch {
    throw invalidOf('The address is not a valid URL');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw invalidOf(`"${url.protocol}" addresses are not accepted; use an http or https address`);
  }
  if (url.username || url.password) throw invalidOf('The address must not contain a user name or password');
  if (url.port) throw invalidOf('The address must not name a port');
  return url;
}

/** Parses a video address or bare id; throws ApiError INVALID_VIDEO_URL naming the problem. */
export function parseVideoUrl(input: string): ParsedVideoUrl {
  if (typeof input !== 'string') throw invalid('The video address must be a string');
  const trimmed = input.trim();
  if (VIDEO_ID.test(trimmed)) return canonical(trimmed);
  // No dot, slash or colon: meant as a bare id, so say what is wrong with it rather than call it a host.
  if (/^[^./:]+$/.test(trimmed) && trimmed.length <= 64) checkId(trimmed, '');

  const url = parseLooseHttpUrl(trimmed, invalid);
  const host = url.hostname.toLowerCase().replace(/\.$/, '');
  const segments = url.pathname.split('/').filter(Boolean);

  if (SHORT_HOSTS.has(host)) {
    if (segments.length !== 1) throw invalid('A short address has exactly one path segment, the video id');
    return canonical(checkId(segments[0], 'in its path'));
  }
  if (NOCOOKIE_HOSTS.has(host)) {
    if (segments.length !== 2 || segments[0] !== 'embed')
      throw invalid('Only embed addresses are accepted on youtube-nocookie.com');
    return canonical(checkId(segments[1], 'after /embed/'));
  }
  if (!MAIN_HOSTS.has(host)) {
    throw invalid(`"${host}" is not a supported video site host`);
  }
  const first = segments[0]?.toLowerCase();
  if (first === 'watch' && segments.length === 1) {
    const ids = url.searchParams.getAll('v');
    if (ids.length === 0 && url.searchParams.has('list')) {
      throw invalid('Playlists are not supported; use the address of a single video');
    }
    if (ids.length > 1) throw invalid('The address names more than one video (several v= parameters)');
    return canonical(checkId(ids[0], 'in its v= parameter'));
  }
  if (first === 'playlist') throw invalid('Playlists are not supported; use the address of a single video');
  if (first && ID_PATHS.has(first)) {
    if (segments.length !== 2)
      throw invalid(`A /${first}/ address has exactly one segment after /${first}/, the video id`);
    return canonical(checkId(segments[1], `after /${first}/`));
  }
  if (segments.length === 0) throw invalid('The address has no video id');
  throw invalid(`"/${segments.join('/').slice(0, 60)}" is not a video page`);
}

function canonical(videoId: string): ParsedVideoUrl {
  return { videoId, canonicalUrl: `https://www.youtube.com/watch?v=${videoId}` };
}
