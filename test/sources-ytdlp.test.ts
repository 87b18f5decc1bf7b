import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtemp, readFile, readdir, rm, stat } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { downloadAudio, fetchMediaInfo, ytdlpVersion, type DownloadAudioOptions } from '../src/sources/ytdlp.ts';
import { classifyYtdlpStderr, YtdlpError, ytdlpErrorToApiError } from '../src/sources/ytdlp-errors.ts';

// These tests drive a FAKE yt-dlp (test/fixtures/fake-yt-dlp): the real sites cannot be reached
// from CI. test/sources-ytdlp-real.test.ts runs the real yt-dlp against a loopback server.
const FAKE = resolve(import.meta.dirname, 'fixtures/fake-yt-dlp');
const AUDIO = sharedPath('audio', 'musdb-falcon69', 'mixture.wav');
const VIDEO = 'https://www.youtube.com/watch?v=dQw4w9WgXcQ';
const TRACK = 'https://soundcloud.com/forss/flickermood';

let dir: string;
let argsFile: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'sf-ytdlp-'));
  argsFile = join(dir, 'args.jsonl');
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const fake = (
  extraEnv: Record<string, string> = {},
  over: Partial<DownloadAudioOptions> = {},
): DownloadAudioOptions => ({
  ytdlpPath: FAKE,
  timeoutMs: 20_000,
  env: { ...process.env, FAKE_YTDLP_AUDIO: AUDIO, FAKE_YTDLP_ARGS_FILE: argsFile, ...extraEnv },
  ...over,
});

async function lastArgs(): Promise<string[]> {
  const lines = (await readFile(argsFile, 'utf8')).trim().split('\n');
  return JSON.parse(lines.at(-1)!) as string[];
}

/** Dead, or a zombie waiting for a reaper (PID 1 in some containers reaps late). */
async function isGone(pid: number): Promise<boolean> {
  for (let i = 0; i < 20; i++) {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => null);
    if (stat === null || /^\d+ \(.*\) Z/.test(stat)) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function ytdlpFailure(p: Promise<unknown>): Promise<YtdlpError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(YtdlpError);
  return err as YtdlpError;
}

describe('fetchMediaInfo (fake yt-dlp)', () => {
  it('parses the -J metadata and passes a fixed, safe argument list', async () => {
    const info = await fetchMediaInfo(VIDEO, fake());
    const probed = await probeAudio(AUDIO);
    expect(info).toEqual({
      id: 'dQw4w9WgXcQ',
      title: 'Fake video dQw4w9WgXcQ',
      durationSeconds: expect.closeTo(probed.durationSeconds, 2),
      thumbnail: 'https://i.ytimg.example/vi/dQw4w9WgXcQ/maxresdefault.jpg',
      channel: 'Fake Channel',
      uploader: 'Fake Channel',
      webpageUrl: VIDEO,
      extractor: 'youtube',
      isLive: false,
    });
    const args = await lastArgs();
    expect(args.slice(-2)).toEqual(['--', VIDEO]);
    expect(args).toEqual(expect.arrayContaining(['-J', '--ignore-config', '--no-playlist', '--flat-playlist']));
    expect(args).not.toContain('--no-simulate');
  });

  it('uses the uploader as channel on sites without channels', async () => {
    const info = await fetchMediaInfo(TRACK, fake());
    expect(info.channel).toBe('Fake Artist');
    expect(info.title).toBe('Fake track forss/flickermood');
    expect(info.id).toMatch(/^\d+$/);
  });

  it('reports an unknown duration as null', async () => {
    expect((await fetchMediaInfo(VIDEO, fake({ FAKE_YTDLP_MODE: 'nodur' }))).durationSeconds).toBeNull();
  });

  it('refuses media longer than the maximum', async () => {
    const err = await ytdlpFailure(
      fetchMediaInfo(VIDEO, fake({ FAKE_YTDLP_MODE: 'long' }, { maxDurationSeconds: 3600 })),
    );
    expect(err.kind).toBe('too-long');
    expect(err.retryable).toBe(false);
    const api = ytdlpErrorToApiError(err, 'video');
    expect(api.code).toBe('AUDIO_TOO_LONG');
    expect(api.message).toBe('The video is 120 minutes long; the maximum is 60 minutes.');
    // without a maximum the same media is fine
    expect((await fetchMediaInfo(VIDEO, fake({ FAKE_YTDLP_MODE: 'long' }))).durationSeconds).toBe(7200);
  });

  it('refuses an address that resolves to a playlist', async () => {
    const err = await ytdlpFailure(fetchMediaInfo('https://on.soundcloud.com/PlaylistX00', fake()));
    expect(err.kind).toBe('playlist');
    expect(ytdlpErrorToApiError(err, 'track')).toMatchObject({ code: 'INVALID_TRACK_URL', status: 400 });
  });

  const classified: [string, string, string, string, boolean][] = [
    // mode, url, kind, API code, retryable
    ['private', VIDEO, 'private', 'VIDEO_NOT_FOUND', false],
    ['private', TRACK, 'private', 'TRACK_NOT_FOUND', false],
    ['unavailable', VIDEO, 'unavailable', 'VIDEO_NOT_FOUND', false],
    ['unavailable', TRACK, 'unavailable', 'TRACK_NOT_FOUND', false],
    ['geo', VIDEO, 'geo-blocked', 'VIDEO_NOT_FOUND', false],
    ['login', VIDEO, 'login-required', 'VIDEO_NOT_FOUND', false],
    ['network', VIDEO, 'network', 'SERVICE_UNAVAILABLE', true],
    ['crash', VIDEO, 'crash', 'SERVICE_UNAVAILABLE', true],
  ];
  it.each(classified)('classifies mode %s on %s as %s', async (mode, url, kind, code, retryable) => {
    const err = await ytdlpFailure(fetchMediaInfo(url, fake({ FAKE_YTDLP_MODE: mode })));
    expect(err.kind).toBe(kind);
    expect(err.retryable).toBe(retryable);
    expect(err.detail.length).toBeGreaterThan(0);
    const api = ytdlpErrorToApiError(err, url === TRACK ? 'track' : 'video');
    expect(api.code).toBe(code);
    expect(api.message).toMatch(url === TRACK ? /track|downloader/ : /video|downloader/);
  });

  it('picks the mode from a token in the URL (for end-to-end tests through the API)', async () => {
    const err = await ytdlpFailure(fetchMediaInfo('https://www.youtube.com/watch?v=PrivateVid0', fake()));
    expect(err.kind).toBe('private');
    expect(ytdlpErrorToApiError(err, 'video').message).toBe('The video is private.');
  });

  it('kills yt-dlp and its children when the timeout passes', async () => {
    const pidFile = join(dir, 'hang.pids');
    const t0 = Date.now();
    const err = await ytdlpFailure(
      fetchMediaInfo(VIDEO, fake({ FAKE_YTDLP_MODE: 'hang', FAKE_YTDLP_PID_FILE: pidFile }, { timeoutMs: 1_500 })),
    );
    expect(err.kind).toBe('timeout');
    expect(err.retryable).toBe(true);
    expect(err.detail).toMatch(/1500 ms/);
    expect(Date.now() - t0).toBeLessThan(5_000);
    const pids = (await readFile(pidFile, 'utf8')).trim().split(' ').map(Number);
    expect(pids).toHaveLength(2);
    for (const pid of pids) expect(await isGone(pid)).toBe(true);
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 300);
    const err = await ytdlpFailure(fetchMediaInfo(VIDEO, fake({ FAKE_YTDLP_MODE: 'hang' }, { signal: ac.signal })));
    expect(err.kind).toBe('aborted');
  });

  it('tells operators how to fix a missing yt-dlp', async () => {
    const err = await ytdlpFailure(fetchMediaInfo(VIDEO, { ytdlpPath: join(dir, 'no-such-yt-dlp'), timeoutMs: 5_000 }));
    expect(err.kind).toBe('not-installed');
    expect(err.detail).toMatch(/ENOENT.*Install or update yt-dlp.*YTDLP_PATH/);
    expect(ytdlpErrorToApiError(err, 'video')).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    await expect(ytdlpVersion({ ytdlpPath: join(dir, 'no-such-yt-dlp'), timeoutMs: 5_000 })).rejects.toMatchObject({
      kind: 'not-installed',
    });
  });

  it('never passes something that is not an http(s) URL', async () => {
    for (const bad of [
      '--exec=touch /tmp/pwned',
      'ytsearch:never gonna',
      'file:///etc/passwd',
      'https://x.example/a b',
    ]) {
      const err = await ytdlpFailure(fetchMediaInfo(bad, fake()));
      expect(err.kind).toBe('unsupported-url');
    }
  });

  it('reads the version', async () => {
    expect(await ytdlpVersion(fake())).toMatch(/fake/);
  });
});

describe('downloadAudio (fake yt-dlp)', () => {
  it('writes <destDir>/source.<ext> and returns its info', async () => {
    const dest = join(dir, 'job-1', 'work%dir');
    const got = await downloadAudio(
      VIDEO,
      dest,
      fake({}, { maxDurationSeconds: 3600, maxFileSizeBytes: 50 * 1024 * 1024 }),
    );
    expect(got.path).toBe(join(dest, 'source.wav'));
    expect(got.bytes).toBe((await stat(AUDIO)).size);
    expect((await readFile(got.path)).equals(await readFile(AUDIO))).toBe(true);
    expect(got.info.id).toBe('dQw4w9WgXcQ');
    const args = await lastArgs();
    expect(args.slice(-2)).toEqual(['--', VIDEO]);
    expect(args).toEqual(expect.arrayContaining(['--no-simulate', '-J', '--ignore-config', '--no-playlist']));
    expect(args[args.indexOf('-f') + 1]).toBe('bestaudio/best');
    expect(args[args.indexOf('-o') + 1]).toBe(join(dest.replace('%', '%%'), 'source.%(ext)s'));
    expect(args[args.indexOf('--match-filter') + 1]).toBe('!is_live & duration <=? 3600');
    expect(args[args.indexOf('--max-filesize') + 1]).toBe(String(50 * 1024 * 1024));
  });

  it('refuses too-long media without downloading it', async () => {
    const dest = join(dir, 'job-long');
    const err = await ytdlpFailure(
      downloadAudio(VIDEO, dest, fake({ FAKE_YTDLP_MODE: 'long' }, { maxDurationSeconds: 900 })),
    );
    expect(err.kind).toBe('too-long');
    expect(ytdlpErrorToApiError(err, 'track').message).toBe(
      'The track is 120 minutes long; the maximum is 15 minutes.',
    );
    expect(await readdir(dest)).toEqual([]);
  });

  it('reports a file over --max-filesize as too large', async () => {
    const dest = join(dir, 'job-big');
    const err = await ytdlpFailure(downloadAudio(VIDEO, dest, fake({}, { maxFileSizeBytes: 1000 })));
    expect(err.kind).toBe('too-large');
    expect(ytdlpErrorToApiError(err, 'video').code).toBe('FILE_TOO_LARGE');
    expect(existsSync(join(dest, 'source.wav'))).toBe(false);
  });

  it('classifies download failures like metadata failures', async () => {
    const err = await ytdlpFailure(downloadAudio(TRACK, join(dir, 'job-geo'), fake({ FAKE_YTDLP_MODE: 'geo' })));
    expect(err.kind).toBe('geo-blocked');
  });
});

describe('classifyYtdlpStderr', () => {
  // Real messages relayed by yt-dlp, from its extractors and issue reports.
  it.each([
    ["ERROR: [youtube] abc: Private video. Sign in if you've been granted access to this video", 'private'],
    [
      'ERROR: [youtube] abc: Video unavailable. This video is no longer available because the YouTube account associated with this video has been terminated.',
      'unavailable',
    ],
    ['ERROR: [youtube] abc: Video unavailable', 'unavailable'],
    ['ERROR: [youtube] abc: The uploader has not made this video available in your country', 'geo-blocked'],
    ['ERROR: [youtube] abc: This video is not available from your location due to geo restriction', 'geo-blocked'],
    [
      'ERROR: [youtube] abc: Sign in to confirm your age. This video may be inappropriate for some users.',
      'login-required',
    ],
    [
      'ERROR: [youtube] abc: Join this channel to get access to members-only content like this video, and other exclusive perks.',
      'login-required',
    ],
    [
      'ERROR: [youtube] abc: Sign in to confirm you’re not a bot. Use --cookies-from-browser or --cookies for the authentication.',
      'login-required',
    ],
    ['ERROR: [youtube] abc: This live event will begin in 3 hours.', 'live'],
    ['ERROR: [soundcloud] 123: Unable to download JSON metadata: HTTP Error 404: Not Found', 'unavailable'],
    ['ERROR: Unsupported URL: https://example.com/', 'unsupported-url'],
    ['ERROR: [generic] None: Unable to download webpage: <urlopen error [Errno 111] Connection refused>', 'network'],
    ['ERROR: [youtube] abc: Unable to download API page: HTTP Error 503: Service Unavailable', 'network'],
    ['ERROR: unable to download video data: HTTP Error 403: Forbidden', 'network'],
    ['ERROR: Postprocessing: ffprobe and ffmpeg not found. Please install or provide the path', 'crash'],
    ['Traceback (most recent call last):\n  File "x"\nKeyError: \'formats\'', 'crash'],
  ])('%s', (stderr, kind) => {
    expect(classifyYtdlpStderr(`WARNING: something first\n${stderr}\n`)).toBe(kind);
  });
});
