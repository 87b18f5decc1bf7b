import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { ApiError } from '../domain/errors.ts';
import { AddressNotAllowedError, parseOutboundUrl, type AddressPolicy } from '../net/address-guard.ts';
import { SourceFetchError } from './fetch-error.ts';
import { fileNameFromContentDisposition, fileNameFromUrl } from './file-name.ts';
import { guardedRequest, RequestTimeoutError } from '../net/guarded-request.ts';

export interface FetchToFileOptions extends AddressPolicy {
  /** Total time for the whole fetch, all redirect hops and the body included (SOURCE_FETCH_TIMEOUT_MS). */
  timeoutMs: number;
  /** Redirects followed at most (SOURCE_MAX_REDIRECTS); one more is a failure. */
  maxRedirects: number;
  /** Size cap in bytes (MAX_FILE_SIZE_MB); checked against Content-Length and while streaming. */
  maxBytes: number;
  /** Default min(10 s, timeoutMs). */
  connectTimeoutMs?: number;
  /** Time without a byte before giving up; default min(30 s, timeoutMs). */
  idleTimeoutMs?: number;
  signal?: AbortSignal;
  userAgent?: string;
}

export interface FetchedFile {
  bytes: number;
  /** The URL the file finally came from, after redirects. */
  finalUrl: string;
  contentType: string | null;
  /** From Content-Disposition, else the last path segment of finalUrl; sanitised; null when neither helps. */
  suggestedFileName: string | null;
  redirects: number;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_USER_AGENT = 'Stemforge/1.0 (+source fetch)';

class TotalTimeout extends Error {}

function formatBytes(n: number): string {
  return n >= 1024 * 1024 ? `${+(n / 1024 / 1024).toFixed(1)} MB` : `${n} bytes`;
}

function tooLarge(maxBytes: number): SourceFetchError {
  return new SourceFetchError(
    'FILE_TOO_LARGE',
    `The file exceeds the maximum file size of ${formatBytes(maxBytes)}.`,
    'too-large',
  );
}

/** Maps anything thrown while fetching onto the catalog, with a reason a user can act on. */
function toFetchError(err: unknown, url: URL, options: FetchToFileOptions): SourceFetchError {
  if (err instanceof SourceFetchError) return err;
  if (err instanceof TotalTimeout) {
    return new SourceFetchError(
      'SOURCE_FETCH_FAILED',
      `Fetching the source URL timed out after ${options.timeoutMs} ms.`,
      'timeout',
    );
  }
  if (options.signal?.aborted)
    return new SourceFetchError('SOURCE_FETCH_FAILED', 'Fetching the source URL was aborted.', 'aborted');
  if (err instanceof AddressNotAllowedError) {
    return new SourceFetchError('URL_NOT_ALLOWED', `The URL is not allowed: ${err.message}.`, 'not-allowed');
  }
  if (err instanceof ApiError) return new SourceFetchError('URL_NOT_ALLOWED', err.message, 'not-allowed');
  if (err instanceof RequestTimeoutError) {
    return new SourceFetchError(
      'SOURCE_FETCH_FAILED',
      `The source server at ${url.host} timed out: ${err.message}.`,
      'timeout',
    );
  }
  const code = (err as NodeJS.ErrnoException).code ?? '';
  const host = url.host;
  let reason: string;
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') reason = `the host ${url.hostname} could not be resolved`;
  else if (code === 'ECONNREFUSED') reason = `the connection to ${host} was refused`;
  else if (code === 'ECONNRESET' || code === 'EPIPE') reason = `the connection to ${host} was reset`;
  else if (code === 'EHOSTUNREACH' || code === 'ENETUNREACH') reason = `${host} is unreachable`;
  else if (/CERT|TLS|SSL/i.test(code)) {
    return new SourceFetchError(
      'SOURCE_FETCH_FAILED',
      `TLS error talking to ${host}: ${(err as Error).message}.`,
      'network',
      {
        retryable: false,
      },
    );
  } else reason = `${(err as Error).message ?? String(err)}`;
  return new SourceFetchError(
    'SOURCE_FETCH_FAILED',
    `The source URL could not be fetched: ${reason}${code ? ` (${code})` : ''}.`,
    'network',
  );
}

/** Streams the body to disk, counting bytes; more than maxBytes aborts with FILE_TOO_LARGE. */
async function saveBody(res: IncomingMessage, destPath: string, maxBytes: number): Promise<number> {
  let bytes = 0;
  const counter = new Transform({
    transform(chunk: Buffer, _enc, done) {
      bytes += chunk.length;
      if (bytes > maxBytes) done(tooLarge(maxBytes));
      else done(null, chunk);
    },
  });
  await pipeline(res, counter, createWriteStream(destPath));
  return bytes;
}

/**
 * Downloads a user-supplied URL to `destPath` through the address guard, following redirects by
 * hand so that every hop is re-validated (scheme, credentials, literal IPs here; resolved
 * addresses at connect time in the guarded lookup). Asks for an uncompressed body
 * (`Accept-Encoding: identity`) because the bytes are the audio file itself.
 * On any failure the partial file is deleted and a SourceFetchError is thrown.
 */
export async function fetchToFile(
  input: string | URL,
  destPath: string,
  options: FetchToFileOptions,
): Promise<FetchedFile> {
  const totalTimer = new AbortController();
  const timer = setTimeout(() => totalTimer.abort(new TotalTimeout()), options.timeoutMs);
  const signal = options.signal ? AbortSignal.any([options.signal, totalTimer.signal]) : totalTimer.signal;
  const connectTimeoutMs = options.connectTimeoutMs ?? Math.min(10_000, options.timeoutMs);
  const idleTimeoutMs = options.idleTimeoutMs ?? Math.min(30_000, options.timeoutMs);
  let url: URL = input instanceof URL ? input : new URL('about:blank');
  let wroteFile = false;
  try {
    url = parseOutboundUrl(input);
    for (let redirects = 0; ; redirects++) {
      const res = await guardedRequest(url, {
        allowPrivate: options.allowPrivate,
        isAllowedAddress: options.isAllowedAddress,
        headers: {
          'User-Agent': options.userAgent ?? DEFAULT_USER_AGENT,
          Accept: '*/*',
          'Accept-Encoding': 'identity',
        },
        signal,
        connectTimeoutMs,
        idleTimeoutMs,
      });
      const status = res.statusCode ?? 0;
      if (REDIRECTS.has(status)) {
        res.destroy();
        const location = res.headers.location;
        if (!location) {
          throw new SourceFetchError(
            'SOURCE_FETCH_FAILED',
            `The source server answered HTTP ${status} without a Location.`,
            'bad-redirect',
          );
        }
        if (redirects >= options.maxRedirects) {
          throw new SourceFetchError(
            'SOURCE_FETCH_FAILED',
            `The source URL redirected more than ${options.maxRedirects} times.`,
            'too-many-redirects',
          );
        }
        let next: URL;
        try {
          next = new URL(location, url);
        } catch {
          throw new SourceFetchError(
            'SOURCE_FETCH_FAILED',
            `The source server redirected to an invalid URL.`,
            'bad-redirect',
          );
        }
        url = parseOutboundUrl(next);
        continue;
      }
      if (status < 200 || status > 299) {
        res.destroy();
        throw new SourceFetchError(
          'SOURCE_FETCH_FAILED',
          `The source server answered HTTP ${status}${res.statusMessage ? ` ${res.statusMessage}` : ''}.`,
          'http-status',
          { httpStatus: status, retryable: status >= 500 || status === 429 || status === 408 },
        );
      }
      const declared = res.headers['content-length'] ? Number(res.headers['content-length']) : null;
      if (declared !== null && declared > options.maxBytes) {
        res.destroy();
        throw tooLarge(options.maxBytes);
      }
      wroteFile = true;
      const bytes = await saveBody(res, destPath, options.maxBytes);
      if (declared !== null && bytes !== declared) {
        throw new SourceFetchError(
          'SOURCE_FETCH_FAILED',
          `The connection closed after ${bytes} of ${declared} bytes.`,
          'truncated',
        );
      }
      return {
        bytes,
        finalUrl: url.href,
        contentType: res.headers['content-type'] ?? null,
        suggestedFileName: fileNameFromContentDisposition(res.headers['content-disposition']) ?? fileNameFromUrl(url),
        redirects,
      };
    }
  } catch (err) {
    if (wroteFile) await rm(destPath, { force: true });
    // Our own disk failing (no such folder, disk full) is a server fault, not a bad source URL.
    const syscall = (err as NodeJS.ErrnoException).syscall;
    if (syscall === 'open' || syscall === 'write' || syscall === 'close') throw err;
    throw toFetchError(signal.aborted && signal.reason instanceof TotalTimeout ? signal.reason : err, url, options);
  } finally {
    clearTimeout(timer);
  }
}
