import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fetchToFile, type FetchToFileOptions } from '../src/sources/safe-fetch.ts';
import { SourceFetchError } from '../src/sources/fetch-error.ts';
import { fileNameFromContentDisposition, fileNameFromUrl, sanitizeFileName } from '../src/sources/file-name.ts';

const payload = randomBytes(100_000);
const hits: string[] = [];

function handler(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  hits.push(url.pathname);
  const path = url.pathname;
  if (path === '/file.mp3') {
    res.writeHead(200, { 'Content-Type': 'audio/mpeg', 'Content-Length': payload.length });
    res.end(payload);
  } else if (path === '/download') {
    res.writeHead(200, {
      'Content-Type': 'audio/ogg',
      'Content-Disposition': `attachment; filename="fallback.ogg"; filename*=UTF-8''My%20Song%20%E2%9C%93.ogg`,
    });
    res.end(payload.subarray(0, 10));
  } else if (path.startsWith('/redirect/')) {
    const n = Number(path.split('/')[2]);
    res.writeHead(302, { Location: n > 0 ? `/redirect/${n - 1}` : '/file.mp3' });
    res.end();
  } else if (path === '/to') {
    res.writeHead(307, { Location: url.searchParams.get('target')! });
    res.end();
  } else if (path === '/big') {
    res.writeHead(200, { 'Content-Length': 5_000_000 });
    res.end(); // never sends the body: the declared length alone must be refused
  } else if (path === '/chunked-big') {
    res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
    let sent = 0;
    const pump = () => {
      while (sent < 2_000_000) {
        sent += 16_384;
        if (!res.write(randomBytes(16_384))) return void res.once('drain', pump);
      }
      res.end();
    };
    pump();
  } else if (path === '/truncated') {
    res.writeHead(200, { 'Content-Length': 1000 });
    res.write(payload.subarray(0, 500), () => res.socket?.destroy());
  } else if (path === '/hang') {
    // never answers
  } else if (path === '/stall') {
    res.writeHead(200, { 'Content-Type': 'audio/mpeg' });
    res.write(payload.subarray(0, 1000)); // then silence
  } else if (path === '/500') {
    res.writeHead(500);
    res.end('boom');
  } else {
    res.writeHead(404);
    res.end();
  }
}

async function listen(host: string): Promise<{ server: Server; port: number }> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return { server, port: (server.address() as AddressInfo).port };
}

let v4: { server: Server; port: number };
let v6: { server: Server; port: number };
let dir: string;
let base: string;

beforeAll(async () => {
  v4 = await listen('127.0.0.1');
  v6 = await listen('::1');
  dir = await mkdtemp(join(tmpdir(), 'sf-fetch-'));
  base = `http://127.0.0.1:${v4.port}`;
});
afterAll(async () => {
  for (const s of [v4.server, v6.server]) {
    s.closeAllConnections();
    await new Promise((r) => s.close(r));
  }
  await rm(dir, { recursive: true, force: true });
});
beforeEach(() => {
  hits.length = 0;
});

const opts = (over: Partial<FetchToFileOptions> = {}): FetchToFileOptions => ({
  allowPrivate: true,
  timeoutMs: 5_000,
  maxRedirects: 5,
  maxBytes: 1024 * 1024,
  ...over,
});

async function failure(p: Promise<unknown>): Promise<SourceFetchError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(SourceFetchError);
  return err as SourceFetchError;
}

describe('fetchToFile', () => {
  it('downloads a file byte for byte (loopback allowed by ALLOW_PRIVATE_URLS)', async () => {
    const dest = join(dir, 'ok.bin');
    const got = await fetchToFile(`${base}/file.mp3`, dest, opts());
    expect(got).toEqual({
      bytes: payload.length,
      finalUrl: `${base}/file.mp3`,
      contentType: 'audio/mpeg',
      suggestedFileName: 'file.mp3',
      redirects: 0,
    });
    expect((await readFile(dest)).equals(payload)).toBe(true);
  });

  it('refuses a loopback IP literal by default without connecting', async () => {
    const dest = join(dir, 'refused.bin');
    const err = await failure(fetchToFile(`${base}/file.mp3`, dest, opts({ allowPrivate: false })));
    expect(err.code).toBe('URL_NOT_ALLOWED');
    expect(err.message).toMatch(/127\.0\.0\.1 is a loopback address/);
    expect(hits).toEqual([]);
    expect(existsSync(dest)).toBe(false);
  });

  it('refuses a host name resolving to loopback at connect time', async () => {
    const err = await failure(
      fetchToFile(`http://localhost:${v4.port}/file.mp3`, join(dir, 'x'), opts({ allowPrivate: false })),
    );
    expect(err.code).toBe('URL_NOT_ALLOWED');
    expect(err.message).toMatch(/localhost \(127\.0\.0\.1\) is a loopback address/);
    expect(hits).toEqual([]);
  });

  describe('re-validates every redirect hop', () => {
    // The policy seam allows only ::1, standing in for "the public internet"; 127.0.0.1 plays the
    // private network. The first hop is allowed, so only a per-hop check can stop the second.
    const onlyV6 = opts({ allowPrivate: false, isAllowedAddress: (a) => a === '::1' });
    const first = (target: string) => `http://[::1]:${v6.port}/to?target=${encodeURIComponent(target)}`;

    it('control: a redirect to an allowed address is followed', async () => {
      const got = await fetchToFile(first(`http://[::1]:${v6.port}/file.mp3`), join(dir, 'hop-ok'), onlyV6);
      expect(got.redirects).toBe(1);
      expect(got.finalUrl).toBe(`http://[::1]:${v6.port}/file.mp3`);
      expect(hits).toEqual(['/to', '/file.mp3']);
    });

    it('a redirect to a private IP literal is refused', async () => {
      const err = await failure(fetchToFile(first(`http://127.0.0.1:${v4.port}/file.mp3`), join(dir, 'hop1'), onlyV6));
      expect(err.code).toBe('URL_NOT_ALLOWED');
      expect(hits).toEqual(['/to']);
    });

    it('a redirect to a host name resolving to a private address is refused', async () => {
      const err = await failure(fetchToFile(first(`http://localhost:${v4.port}/file.mp3`), join(dir, 'hop2'), onlyV6));
      expect(err.code).toBe('URL_NOT_ALLOWED');
      expect(err.message).toMatch(/localhost/);
      expect(hits).toEqual(['/to']);
    });

    it('a redirect to another scheme is refused', async () => {
      const err = await failure(fetchToFile(first('file:///etc/passwd'), join(dir, 'hop3'), onlyV6));
      expect(err.code).toBe('URL_NOT_ALLOWED');
    });
  });

  it('follows redirects up to the limit and no further', async () => {
    const got = await fetchToFile(`${base}/redirect/4`, join(dir, 'r4'), opts({ maxRedirects: 5 }));
    expect(got.redirects).toBe(5);
    expect(got.finalUrl).toBe(`${base}/file.mp3`);

    const err = await failure(fetchToFile(`${base}/redirect/5`, join(dir, 'r5'), opts({ maxRedirects: 5 })));
    expect(err.code).toBe('SOURCE_FETCH_FAILED');
    expect(err.reason).toBe('too-many-redirects');
    expect(err.message).toMatch(/more than 5 times/);

    const none = await failure(fetchToFile(`${base}/redirect/0`, join(dir, 'r0'), opts({ maxRedirects: 0 })));
    expect(none.reason).toBe('too-many-redirects');
  });

  it('refuses a declared Content-Length over the cap before reading the body', async () => {
    const dest = join(dir, 'big');
    const err = await failure(fetchToFile(`${base}/big`, dest, opts()));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.message).toMatch(/1 MB/);
    expect(existsSync(dest)).toBe(false);
  });

  it('aborts a chunked body at the cap and deletes the partial file', async () => {
    const dest = join(dir, 'chunked');
    const err = await failure(fetchToFile(`${base}/chunked-big`, dest, opts()));
    expect(err.code).toBe('FILE_TOO_LARGE');
    expect(err.retryable).toBe(false);
    expect(existsSync(dest)).toBe(false);
  });

  it('reports a truncated body and deletes the partial file', async () => {
    const dest = join(dir, 'trunc');
    const err = await failure(fetchToFile(`${base}/truncated`, dest, opts()));
    expect(err.code).toBe('SOURCE_FETCH_FAILED');
    expect(err.retryable).toBe(true);
    expect(existsSync(dest)).toBe(false);
  });

  it('times out a server that never answers (total timeout)', async () => {
    const t0 = Date.now();
    const err = await failure(fetchToFile(`${base}/hang`, join(dir, 'hang'), opts({ timeoutMs: 300 })));
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/timed out after 300 ms/);
    expect(Date.now() - t0).toBeLessThan(3_000);
  });

  it('times out a body that stalls (idle timeout) and deletes the partial file', async () => {
    const dest = join(dir, 'stall');
    const err = await failure(fetchToFile(`${base}/stall`, dest, opts({ idleTimeoutMs: 200 })));
    expect(err.reason).toBe('timeout');
    expect(err.message).toMatch(/no data for 200 ms/);
    expect(existsSync(dest)).toBe(false);
  });

  it('reports HTTP errors with the status', async () => {
    const e500 = await failure(fetchToFile(`${base}/500`, join(dir, 'e'), opts()));
    expect(e500).toMatchObject({
      code: 'SOURCE_FETCH_FAILED',
      reason: 'http-status',
      httpStatus: 500,
      retryable: true,
    });
    expect(e500.message).toMatch(/HTTP 500/);
    const e404 = await failure(fetchToFile(`${base}/missing`, join(dir, 'e'), opts()));
    expect(e404).toMatchObject({ httpStatus: 404, retryable: false });
  });

  it('reports a refused connection', async () => {
    const { server, port } = await listen('127.0.0.1');
    await new Promise((r) => server.close(r));
    const err = await failure(fetchToFile(`http://127.0.0.1:${port}/x`, join(dir, 'e'), opts()));
    expect(err).toMatchObject({ code: 'SOURCE_FETCH_FAILED', reason: 'network', retryable: true });
    expect(err.message).toMatch(/refused.*ECONNREFUSED/);
  });

  it('stops when the caller aborts', async () => {
    const ac = new AbortController();
    setTimeout(() => ac.abort(), 100);
    const err = await failure(fetchToFile(`${base}/hang`, join(dir, 'a'), opts({ signal: ac.signal })));
    expect(err.reason).toBe('aborted');
  });

  it('takes the file name from Content-Disposition (filename* first)', async () => {
    const got = await fetchToFile(`${base}/download`, join(dir, 'cd'), opts());
    expect(got.suggestedFileName).toBe('My Song ✓.ogg');
  });
});

describe('file names', () => {
  it('sanitises paths, control characters and hidden names', () => {
    expect(sanitizeFileName('../../etc/passwd')).toBe('passwd');
    expect(sanitizeFileName('..\\..\\boot.ini')).toBe('boot.ini');
    expect(sanitizeFileName('a\u0000b\nc\u202e.mp3')).toBe('abc.mp3');
    expect(sanitizeFileName('..')).toBeNull();
    expect(sanitizeFileName('.bashrc')).toBe('bashrc');
    expect(sanitizeFileName('   ')).toBeNull();
    expect(sanitizeFileName('a"b<c>.mp3')).toBe('a_b_c_.mp3');
    const long = sanitizeFileName(`${'x'.repeat(500)}.flac`)!;
    expect(long).toHaveLength(200);
    expect(long.endsWith('.flac')).toBe(true);
  });

  it('reads Content-Disposition forms', () => {
    expect(fileNameFromContentDisposition('attachment; filename="song.mp3"')).toBe('song.mp3');
    expect(fileNameFromContentDisposition('attachment; filename=song.mp3')).toBe('song.mp3');
    expect(fileNameFromContentDisposition('attachment; filename="a \\"q\\".mp3"')).toBe('a _q_.mp3');
    expect(fileNameFromContentDisposition("attachment; filename*=UTF-8''%C3%A9t%C3%A9.mp3; filename=x.mp3")).toBe(
      'été.mp3',
    );
    expect(fileNameFromContentDisposition("attachment; filename*=iso-8859-1'en'%E9t%E9.mp3")).toBe('été.mp3');
    expect(fileNameFromContentDisposition('attachment; filename="../../x.mp3"')).toBe('x.mp3');
    expect(fileNameFromContentDisposition('inline')).toBeNull();
    expect(fileNameFromContentDisposition(undefined)).toBeNull();
  });

  it('falls back to the last URL path segment', () => {
    expect(fileNameFromUrl(new URL('https://e.com/music/My%20Song.mp3?x=1'))).toBe('My Song.mp3');
    expect(fileNameFromUrl(new URL('https://e.com/a/..%2F..%2Fetc%2Fpasswd'))).toBe('passwd');
    expect(fileNameFromUrl(new URL('https://e.com/'))).toBeNull();
    expect(fileNameFromUrl(new URL('https://e.com/bad%E0%A4%A'))).toBe('bad%E0%A4%A');
  });
});

describe('fetchToFile disk errors', () => {
  it('rethrows a failure to write the destination as-is (a server fault, not a bad URL)', async () => {
    const err = await fetchToFile(`${base}/file.mp3`, join(dir, 'no-such-dir', 'x.bin'), opts()).catch(
      (e: unknown) => e,
    );
    expect(err).not.toBeInstanceOf(SourceFetchError);
    expect(err).toMatchObject({ code: 'ENOENT', syscall: 'open' });
  });
});
