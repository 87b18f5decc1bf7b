import { performance } from 'node:perf_hooks';
import { ApiError } from '../domain/errors.ts';
import { AddressNotAllowedError, parseOutboundUrl, type AddressPolicy } from '../net/address-guard.ts';
import { guardedRequest, RequestTimeoutError } from '../net/guarded-request.ts';
import { signBody } from './sign.ts';

export const WEBHOOK_USER_AGENT = 'Stemforge-Webhooks/1.0';

export interface WebhookDelivery extends AddressPolicy {
  url: string;
  secret: string;
  webhookId: string;
  /** `job.completed` or `job.failed`. */
  event: string;
  /**
   * The payload. An object is serialised exactly once and that string is both signed and sent;
   * a string is taken as already-serialised JSON (e.g. the body stored in the outbox) and sent as is.
   */
  body: unknown;
  /** WEBHOOK_TIMEOUT_MS: the whole attempt, from connect to the response status. */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface WebhookResult {
  /** True for any 2xx status. */
  ok: boolean;
  status: number | null;
  /** A readable reason for `lastError`: "HTTP 500", "timeout after 10000 ms", "connect ECONNREFUSED ...". */
  error: string | null;
  durationMs: number;
}

class AttemptTimeout extends Error {}

export function serializeWebhookBody(body: unknown): string {
  return typeof body === 'string' ? body : JSON.stringify(body);
}

function describe(err: unknown, timeoutMs: number): string {
  if (err instanceof AttemptTimeout || err instanceof RequestTimeoutError) return `timeout after ${timeoutMs} ms`;
  if (err instanceof AddressNotAllowedError) return `address not allowed: ${err.message}`;
  if (err instanceof ApiError) return err.message;
  const { code, message } = err as NodeJS.ErrnoException;
  if (code && !message.includes(code)) return `${code}: ${message}`;
  return message || String(err);
}

/**
 * Delivers one webhook event: exactly one attempt, no retries, no redirects followed (a 3xx is a
 * failure: following it would let a receiver bounce our signed payload to another host).
 * Never throws; the outcome is for the caller to record (failCount, lastError, lastCalledAt).
 * Goes through the address guard, so private targets are refused at connect time unless
 * `allowPrivate` (ALLOW_PRIVATE_URLS) is set.
 */
export async function sendWebhook(delivery: WebhookDelivery): Promise<WebhookResult> {
  const started = performance.now();
  const elapsed = () => Math.round(performance.now() - started);
  const raw = serializeWebhookBody(delivery.body);
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(new AttemptTimeout()), delivery.timeoutMs);
  const signal = delivery.signal ? AbortSignal.any([delivery.signal, deadline.signal]) : deadline.signal;
  try {
    const url = parseOutboundUrl(delivery.url);
    const res = await guardedRequest(url, {
      allowPrivate: delivery.allowPrivate,
      isAllowedAddress: delivery.isAllowedAddress,
      method: 'POST',
      headers: {
        'Content-Type': 'application/json',
        'Content-Length': Buffer.byteLength(raw),
        'User-Agent': WEBHOOK_USER_AGENT,
        'X-Webhook-Signature': signBody(raw, delivery.secret),
        'X-Webhook-Event': delivery.event,
        'X-Webhook-Id': delivery.webhookId,
      },
      body: raw,
      signal,
      connectTimeoutMs: delivery.timeoutMs,
      idleTimeoutMs: delivery.timeoutMs,
    });
    // The response body carries nothing we use; drop it rather than wait for a slow receiver.
    res.destroy();
    const status = res.statusCode ?? 0;
    const ok = status >= 200 && status <= 299;
    const error = ok
      ? null
      : status >= 300 && status <= 399
        ? `HTTP ${status} (redirects are not followed)`
        : `HTTP ${status}`;
    return { ok, status, error, durationMs: elapsed() };
  } catch (err) {
    const reason = deadline.signal.aborted ? deadline.signal.reason : err;
    return { ok: false, status: null, error: describe(reason, delivery.timeoutMs), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}
