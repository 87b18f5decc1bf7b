import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, type ErrorCode } from '../domain/errors.ts';

/** A request line longer than this that overflows the header limit is a URL too long (414). */
const LONG_REQUEST_LINE = 8 * 1024;

/** What Node's HTTP parser reports for a request it refuses, as a catalog code. */
function codeOf(err: NodeJS.ErrnoException & { rawPacket?: Buffer }): ErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (err.code === 'HPE_INVALID_VERSION') return 'HTTP_VERSION_NOT_SUPPORTED';
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    // Node counts the request line with the headers; when the bytes it had hold no end of the
    // request line, it was the URL that overflowed.
    const line = err.rawPacket?.subarray(0, LONG_REQUEST_LINE + 2).indexOf('\n') ?? 0;
    return line === -1 && (err.rawPacket?.length ?? 0) > LONG_REQUEST_LINE ? 'URI_TOO_LONG' : 'HEADERS_TOO_LARGE';
  }
  return 'MALFORMED_REQUEST';
}

/**
 * A whole HTTP/1.1 answer carrying the contract's error body, for the places where Node (not
 * Fastify) answers: a request its parser refuses, a CONNECT. The connection closes after it.
 */
export function rawErrorAnswer(e: ApiError): string {
  const body = JSON.stringify(e.toBody());
  return (
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses before any route sees it (a
 * control byte in a header, a malformed request line, an HTTP version other than 1.x, headers or a
 * URL too large, a request too slow) gets the contract's error body with its status, then the
 * connection closes, as HTTP requires once the framing can no longer be trusted.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  socket.end(rawErrorAnswer(new ApiError(codeOf(err))), () => socket.destroy());
}
