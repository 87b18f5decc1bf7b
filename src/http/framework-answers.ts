import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../domain/errors.ts';
import { rawErrorAnswer } from './client-error.ts';

/** A Host value (RFC 9110 7.2): a registered name, an IPv4 address or an IPv6 literal, and a port. */
const HOST_VALUE = /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9._~!$&'()*+,;=%-]*)(?::\d*)?$/;

/**
 * The answers Node's HTTP server and Fastify would make on their own, with an empty or a foreign
 * body, given the contract's body instead (docs/http.md):
 * - an HTTP/1.1 request without a Host header, or any request with two (RFC 9112 3.2: 400; Node
 *   answers the first with an empty body and lets the second through), or with an invalid one;
 * - a request whose HTTP major version is not 1 (505);
 * - an `Expect` other than 100-continue (417; Node's own answer has no body);
 * - CONNECT (Node closes the socket without a word): 404, this server is no proxy;
 * - a request that arrives while the server closes (Fastify's 503 has its own body);
 * - a body with a Content-Encoding (415): the routes read bodies as sent, and would misread it.
 * Requests Node's parser refuses outright are answered by `client-error.ts`. Installed first, so
 * these refusals come before any authentication, rate limit or query.
 */
export function installFrameworkAnswers(app: FastifyInstance): void {
  app.server.on('checkExpectation', (_req, res) => {
    const body = JSON.stringify(new ApiError('EXPECTATION_FAILED').toBody());
    res.writeHead(417, {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(body),
      Connection: 'close',
    });
    res.end(body);
  });
  app.server.on('connect', (req, socket) => {
    const e = new ApiError(
      'NOT_FOUND',
      `No route ${req.method} ${String(req.url).slice(0, 100)}: this server is no proxy.`,
    );
    socket.end(rawErrorAnswer(e), () => socket.destroy());
  });
  let closing = false;
  app.addHook('preClose', (done) => {
    closing = true;
    done();
  });
  app.addHook('onRequest', async (request, reply) => {
    if (closing) {
      reply.header('Connection', 'close');
      throw new ApiError(
        'SERVICE_UNAVAILABLE',
        'The server is shutting down; send the request again.',
        {},
        {
          'Retry-After': '1',
        },
      );
    }
    const refusal = framingRefusal(request);
    if (refusal) {
      reply.header('Connection', 'close');
      throw refusal;
    }
  });
}

function framingRefusal(request: FastifyRequest): ApiError | null {
  const raw = request.raw;
  if (raw.httpVersionMajor !== 1) return new ApiError('HTTP_VERSION_NOT_SUPPORTED');
  const hosts = raw.headersDistinct.host ?? [];
  if (hosts.length > 1) {
    return new ApiError('MALFORMED_REQUEST', `The request has ${hosts.length} Host headers; HTTP allows one.`);
  }
  if (hosts.length === 0 && raw.httpVersionMinor >= 1) {
    return new ApiError('MALFORMED_REQUEST', 'An HTTP/1.1 request must have a Host header.');
  }
  if (hosts.length === 1 && !HOST_VALUE.test(hosts[0]!)) {
    return new ApiError('MALFORMED_REQUEST', 'The Host header is not a host name or address.');
  }
  const encoding = request.headers['content-encoding'];
  if (encoding !== undefined && encoding.trim().toLowerCase() !== 'identity') {
    return new ApiError('UNSUPPORTED_MEDIA_TYPE', 'Send the request body without a Content-Encoding (uncompressed).');
  }
  return null;
}
