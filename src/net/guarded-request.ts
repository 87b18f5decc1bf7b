import http, { type IncomingMessage, type OutgoingHttpHeaders } from 'node:http';
import https from 'node:https';
import { checkLiteralHost, createGuardedLookup, type AddressPolicy } from './address-guard.ts';

/** A connect or idle timeout of one outbound request. */
export class RequestTimeoutError extends Error {
  readonly code = 'ETIMEDOUT';

  constructor(
    readonly phase: 'connect' | 'idle',
    readonly ms: number,
  ) {
    super(phase === 'connect' ? `connection not established within ${ms} ms` : `no data for ${ms} ms`);
  }
}

export interface GuardedRequestOptions extends AddressPolicy {
  method?: string;
  headers?: OutgoingHttpHeaders;
  body?: string | Buffer;
  /** Aborts the request (and a response being read) with the signal's reason. */
  signal?: AbortSignal;
  /** Time allowed for the TCP connection to open. */
  connectTimeoutMs: number;
  /** Time allowed without any byte in either direction, also while the body streams. */
  idleTimeoutMs: number;
}

/**
 * One outbound HTTP(S) request through the address guard: IP-literal hosts are checked before
 * dialling, host names by the guarded lookup at connect time. Resolves with the response as soon
 * as its head arrives; the caller reads or discards the body. Never follows redirects, never
 * uses a shared keep-alive agent (a pooled socket would skip the connect-time check).
 * Rejects with AddressNotAllowedError, RequestTimeoutError, the signal's reason or a node error.
 */
export function guardedRequest(url: URL, options: GuardedRequestOptions): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    try {
      checkLiteralHost(url, options);
    } catch (err) {
      return reject(err);
    }
    const transport = url.protocol === 'https:' ? https : http;
    const req = transport.request(url, {
      method: options.method ?? 'GET',
      headers: options.headers,
      agent: false,
      lookup: createGuardedLookup(options),
      timeout: options.idleTimeoutMs,
    });
    let response: IncomingMessage | null = null;
    const fail = (err: Error) => (response ? response.destroy(err) : req.destroy(err));

    const connectTimer = setTimeout(
      () => fail(new RequestTimeoutError('connect', options.connectTimeoutMs)),
      options.connectTimeoutMs,
    );
    req.on('socket', (socket) => {
      if (!socket.connecting) clearTimeout(connectTimer);
      else socket.once('connect', () => clearTimeout(connectTimer));
    });
    req.on('timeout', () => fail(new RequestTimeoutError('idle', options.idleTimeoutMs)));
    req.on('close', () => clearTimeout(connectTimer));

    const onAbort = () => fail(options.signal!.reason instanceof Error ? options.signal!.reason : new Error('aborted'));
    if (options.signal?.aborted) onAbort();
    options.signal?.addEventListener('abort', onAbort, { once: true });
    req.on('close', () => options.signal?.removeEventListener('abort', onAbort));

    req.on('error', (err) => {
      clearTimeout(connectTimer);
      reject(err);
    });
    req.on('response', (res) => {
      clearTimeout(connectTimer);
      response = res;
      resolve(res);
    });
    req.end(options.body);
  });
}
