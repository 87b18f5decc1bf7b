import { mkdir, rm, stat } from 'node:fs/promises';
import { join, relative, resolve, isAbsolute } from 'node:path';
import { classifyYtdlpStderr, lastErrorLine, YtdlpError } from './ytdlp-errors.ts';
import { runYtdlp, type YtdlpProcessOptions, type YtdlpRun } from './ytdlp-process.ts';
import { LONE_SURROGATE, stripUnsafeText } from '../domain/safe-text.ts';

/**
 * The video-site and track-site downloader: yt-dlp (https://github.com/yt-dlp/yt-dlp) run as a
 * child process. Callers pass only canonical URLs built by `parseVideoUrl` / `parseTrackUrl`;
 * this module adds its own guards anyway (http(s) only, `--` before the URL so it can never be
 * read as an option, a fixed argument list, no shell, `--ignore-config` so no config file on the
 * host can add options, `--no-playlist` so a URL never expands to many downloads).
 * Flags were checked against Debian 12's yt-dlp 2023.03.04 (see test/sources-ytdlp-real.test.ts).
 */

export interface MediaInfo {
  id: string;
  title: string;
  /** Null when the site does not say (e.g. a direct file link); probe the download instead. */
  durationSeconds: number | null;
  thumbnail: string | null;
  /** The channel name, or the uploader where the site has no channels (SoundCloud). */
  channel: string | null;
  uploader: string | null;
  webpageUrl: string | null;
  extractor: string | null;
  isLive: boolean;
}

export interface YtdlpOptions extends YtdlpProcessOptions {
  /** Media longer than this is refused with kind 'too-long' (60 min for videos, 15 for tracks). */
  maxDurationSeconds?: number;
}

export interface DownloadAudioOptions extends YtdlpOptions {
  /** Passed as --max-filesize and checked again on the file written. */
  maxFileSizeBytes?: number;
}

export interface DownloadedAudio {
  /** Absolute path of the audio file, `<destDir>/source.<ext>`, in the site's own codec. */
  path: string;
  bytes: number;
  info: MediaInfo;
}

const BASE_ARGS = [
  '--ignore-config',
  '--no-playlist',
  '--no-cache-dir',
  '--no-progress',
  '--no-colors',
  '--socket-timeout',
  '30',
  '--retries',
  '3',
  '--fragment-retries',
  '3',
];

function assertHttpUrl(url: string): void {
  if (!/^https?:\/\/[^\s]+$/i.test(url)) {
    throw new YtdlpError(
      'unsupported-url',
      `refusing to pass a non-http(s) URL to yt-dlp: ${JSON.stringify(url.slice(0, 100))}`,
    );
  }
}

function minutes(seconds: number): string {
  const m = Math.round((seconds / 60) * 10) / 10;
  return `${m} minute${m === 1 ? '' : 's'}`;
}

function failedRun(run: YtdlpRun): YtdlpError {
  const kind = classifyYtdlpStderr(run.stderr);
  const detail =
    lastErrorLine(run.stderr) ?? `yt-dlp exited with ${run.code ?? run.signal}: ${run.stderr.trim().slice(-500)}`;
  return new YtdlpError(kind, detail);
}

type RawInfo = Record<string, unknown>;

function parseJson(stdout: string): RawInfo {
  try {
    const value: unknown = JSON.parse(stdout.trim().split('\n').at(-1) ?? '');
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as RawInfo;
  } catch {
    // fall through
  }
  throw new YtdlpError('bad-output', `yt-dlp printed no JSON object: ${stdout.slice(0, 200)}`);
}

/**
 * A text field of the site's info, as plain text (`src/domain/safe-text.ts`): titles and channel
 * names are shown and stored, so what the site put in them to hide or reorder text is dropped.
 */
const str = (v: unknown): string | null => {
  const text = typeof v === 'string' ? stripUnsafeText(v.replace(LONE_SURROGATE, '')) : '';
  return text.trim() !== '' ? text : null;
};

/** Maps yt-dlp's info dict (its `-J` output) onto what Stemforge uses. */
export function toMediaInfo(raw: RawInfo): MediaInfo {
  const id = str(raw.id) ?? (typeof raw.id === 'number' ? String(raw.id) : null);
  if (!id) throw new YtdlpError('bad-output', 'yt-dlp JSON has no id');
  const duration =
    typeof raw.duration === 'number' && Number.isFinite(raw.duration) && raw.duration > 0 ? raw.duration : null;
  const thumbs = Array.isArray(raw.thumbnails) ? (raw.thumbnails as RawInfo[]) : [];
  return {
    id,
    title: str(raw.title) ?? str(raw.fulltitle) ?? id,
    durationSeconds: duration,
    thumbnail: str(raw.thumbnail) ?? str(thumbs.at(-1)?.url) ?? null,
    channel: str(raw.channel) ?? str(raw.uploader),
    uploader: str(raw.uploader),
    webpageUrl: str(raw.webpage_url),
    extractor: str(raw.extractor_key) ?? str(raw.extractor),
    isLive: raw.is_live === true || raw.live_status === 'is_live' || raw.live_status === 'is_upcoming',
  };
}

/** Refusals that depend on the info dict: playlists, live streams, too long. */
function checkInfo(raw: RawInfo, options: YtdlpOptions): MediaInfo {
  if (raw._type === 'playlist' || raw._type === 'multi_video') {
    throw new YtdlpError('playlist', `the URL resolved to a ${String(raw._type)} (${String(raw.id)})`);
  }
  const info = toMediaInfo(raw);
  if (info.isLive) throw new YtdlpError('live', `live_status ${String(raw.live_status ?? 'is_live')}`);
  const max = options.maxDurationSeconds;
  if (max !== undefined && info.durationSeconds !== null && info.durationSeconds > max) {
    throw new YtdlpError(
      'too-long',
      `duration ${info.durationSeconds} s > ${max} s`,
      `The media is ${minutes(info.durationSeconds)} long; the maximum is ${minutes(max)}.`,
    );
  }
  return info;
}

/** Metadata only (`yt-dlp -J`): title, duration, thumbnail, channel. Nothing is downloaded. */
export async function fetchMediaInfo(url: string, options: YtdlpOptions): Promise<MediaInfo> {
  assertHttpUrl(url);
  // --flat-playlist: should a short link resolve to a playlist, list it without extracting every entry.
  const run = await runYtdlp([...BASE_ARGS, '--flat-playlist', '-J', '--', url], options);
  if (run.code !== 0) throw failedRun(run);
  return checkInfo(parseJson(run.stdout), options);
}

/**
 * Downloads the best audio-only format (or the best format when a site has no separate audio)
 * into `destDir` as `source.<ext>`, without re-encoding: Stemforge's own ffmpeg decodes whatever
 * codec arrives, so no yt-dlp post-processing (and no ffmpeg requirement for yt-dlp) is needed.
 * `-J --no-simulate` prints the info dict after the download, including the written file path,
 * so one process gives both. Too-long and live media are skipped by --match-filter before any
 * byte is fetched.
 */
export async function downloadAudio(
  url: string,
  destDir: string,
  options: DownloadAudioOptions,
): Promise<DownloadedAudio> {
  assertHttpUrl(url);
  const dir = resolve(destDir);
  await mkdir(dir, { recursive: true });
  const filters = ['!is_live'];
  if (options.maxDurationSeconds !== undefined) filters.push(`duration <=? ${Math.floor(options.maxDurationSeconds)}`);
  const args = [
    ...BASE_ARGS,
    '-J',
    '--no-simulate',
    '-f',
    'bestaudio/best',
    '--no-mtime', // keep the download time as mtime: retention sweeps read it
    '-o',
    join(dir, 'source.%(ext)s').replace(/%(?!\(ext\)s)/g, '%%'),
    '--match-filter',
    filters.join(' & '),
    ...(options.maxFileSizeBytes !== undefined ? ['--max-filesize', String(Math.floor(options.maxFileSizeBytes))] : []),
    '--',
    url,
  ];
  const run = await runYtdlp(args, options);
  if (run.code !== 0) throw failedRun(run);
  const raw = parseJson(run.stdout);
  const info = checkInfo(raw, options);

  const downloads = Array.isArray(raw.requested_downloads) ? (raw.requested_downloads as RawInfo[]) : null;
  const filepath = str(downloads?.[0]?.filepath);
  const max = options.maxFileSizeBytes;
  if (!filepath) {
    // yt-dlp exits 0 without a file when --max-filesize aborted the download (the message is
    // silenced by -J); duration and live refusals were caught by checkInfo above.
    if (downloads && max !== undefined) throw tooLarge(max, 'yt-dlp skipped the download (--max-filesize)');
    throw new YtdlpError('bad-output', 'yt-dlp reported no downloaded file');
  }
  const path = isAbsolute(filepath) ? filepath : resolve(dir, filepath);
  const rel = relative(dir, path);
  if (rel.startsWith('..') || isAbsolute(rel))
    throw new YtdlpError('bad-output', `yt-dlp wrote outside the work folder: ${path}`);
  const bytes = await stat(path).then(
    (s) => s.size,
    () => -1,
  );
  if (bytes <= 0) throw new YtdlpError('bad-output', `the downloaded file is missing or empty: ${path}`);
  if (max !== undefined && bytes > max) {
    await rm(path, { force: true });
    throw tooLarge(max, `${bytes} bytes > ${max}`);
  }
  return { path, bytes, info };
}

function tooLarge(max: number, detail: string): YtdlpError {
  return new YtdlpError(
    'too-large',
    detail,
    `The media is larger than the maximum file size of ${Math.round(max / 1024 / 1024)} MB.`,
  );
}

/** `yt-dlp --version`, for start-up logs and readiness checks. Throws YtdlpError not-installed. */
export async function ytdlpVersion(options: YtdlpProcessOptions): Promise<string> {
  const run = await runYtdlp(['--version'], options);
  if (run.code !== 0) throw failedRun(run);
  return run.stdout.trim();
}
