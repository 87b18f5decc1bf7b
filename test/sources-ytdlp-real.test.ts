import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sharedPath } from '../support/shared.ts';
import { probeAudio } from '../src/audio/probe.ts';
import { downloadAudio, fetchMediaInfo, ytdlpVersion } from '../src/sources/ytdlp.ts';
import { YtdlpError } from '../src/sources/ytdlp-errors.ts';

// The REAL yt-dlp (Debian's, from PATH) against a loopback server, through its generic extractor
// (a direct media link). Proves the argument list and the JSON parsing work with the real tool.
const YTDLP = 'yt-dlp';
const installed = spawnSync(YTDLP, ['--version']).status === 0;

let dir: string;
let server: Server;
let base: string;
let mp3: Buffer;

beforeAll(async () => {
  if (!installed) return;
  dir = await mkdtemp(join(tmpdir(), 'sf-ytdlp-real-'));
  const src = join(dir, 'song.mp3');
  execFileSync('ffmpeg', [
    '-v',
    'error',
    '-y',
    '-i',
    sharedPath('audio', 'musdb-falcon69', 'mixture.wav'),
    '-t',
    '3',
    '-b:a',
    '64k',
    src,
  ]);
  mp3 = await readFile(src);
  server = createServer((req, res) => {
    if (req.url === '/media/song.mp3') {
      res.writeHead(200, { 'Content-Type': 'audio/mpeg', 'Content-Length': mp3.length });
      res.end(req.method === 'HEAD' ? undefined : mp3);
    } else {
      res.writeHead(404, { 'Content-Type': 'text/plain' });
      res.end('not here');
    }
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  if (!installed) return;
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
  await rm(dir, { recursive: true, force: true });
});

const opts = { ytdlpPath: YTDLP, timeoutMs: 60_000 };

describe.skipIf(!installed)('real yt-dlp on loopback', () => {
  it('reports its version', async () => {
    expect(await ytdlpVersion(opts)).toMatch(/^\d{4}\.\d{2}\.\d{2}/);
  });

  it('reads metadata with -J', async () => {
    const info = await fetchMediaInfo(`${base}/media/song.mp3`, { ...opts, maxDurationSeconds: 900 });
    expect(info).toMatchObject({ id: 'song', title: 'song', webpageUrl: `${base}/media/song.mp3`, isLive: false });
    expect(info.extractor?.toLowerCase()).toBe('generic');
    expect(info.durationSeconds).toBeNull(); // a bare file link has no duration until probed
  });

  it('downloads the audio with every flag the service uses', async () => {
    const dest = join(dir, 'job');
    const got = await downloadAudio(`${base}/media/song.mp3`, dest, {
      ...opts,
      maxDurationSeconds: 900,
      maxFileSizeBytes: 50 * 1024 * 1024,
    });
    expect(got.path).toBe(join(dest, 'source.mp3'));
    expect(got.bytes).toBe(mp3.length);
    expect((await readFile(got.path)).equals(mp3)).toBe(true);
    expect((await probeAudio(got.path)).durationSeconds).toBeCloseTo(3, 0);
    expect(await readdir(dest)).toEqual(['source.mp3']); // no .part, .ytdl or cache leftovers
  });

  it('reports a file over --max-filesize as too large', async () => {
    const dest = join(dir, 'job-big');
    const err = await downloadAudio(`${base}/media/song.mp3`, dest, { ...opts, maxFileSizeBytes: 10_000 }).catch(
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(YtdlpError);
    expect(err).toMatchObject({ kind: 'too-large' });
    expect(await readdir(dest)).toEqual([]);
  });

  it('classifies a 404 as unavailable from the real stderr', async () => {
    const err = await fetchMediaInfo(`${base}/media/missing.mp3`, opts).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(YtdlpError);
    expect(err).toMatchObject({ kind: 'unavailable', retryable: false });
    expect((err as YtdlpError).detail).toMatch(/^ERROR: .*404/);
  });

  it('classifies a refused connection as a retryable network failure', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    const err = await fetchMediaInfo(`http://127.0.0.1:${port}/x.mp3`, opts).catch((e: unknown) => e);
    expect(err).toMatchObject({ kind: 'network', retryable: true });
  });
});
