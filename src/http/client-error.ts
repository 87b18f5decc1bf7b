import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import { ApiError, type ErrorCode } from '../domain/errors.ts';

/** What Node's HTTP parser reports for a request it refuses, as a catalog code. */
function codeOf(err: NodeJS.ErrnoException): ErrorCode {
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'REQUEST_TIMEOUT';
  if (err.code === 'HPE_HEADER_OVERFLOW') return 'HEADERS_TOO_LARGE';
  return 'MALFORMED_REQUEST';
}

/**
 * Fastify's `clientErrorHandler`: a request Node's parser refuses before any route sees it (a
 * control byte in a header, a malformed request line, headers too large, a request too slow)
 * gets the contract's error body with its status, then the connection closes, as HTTP requires
 * once the framing can no longer be trusted.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  const e = new ApiError(codeOf(err));
  const body = JSON.stringify(e.toBody());
  socket.end(
    `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\n` +
      'Content-Type: application/json; charset=utf-8\r\n' +
      `Content-Length: ${Buffer.byteLength(body)}\r\n` +
      'Connection: close\r\n\r\n' +
      body,
    () => socket.destroy(),
  );
}
