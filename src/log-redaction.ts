/**
 * What the logs never carry: API keys, signatures, secrets and passwords, wherever a client puts
 * them. Two layers: pino's `redact` for structured fields (headers, bodies, webhook rows), and
 * `scrubUrl` for credentials inside URLs (`?api_key=`, a signed URL's `sig`, S3's
 * `X-Amz-Signature`/`X-Amz-Credential`, `user:password@`), applied by the request serializer and
 * to any URL we log.
 */

export const REDACTED = '[redacted]';

/** pino `redact` paths: every header that can carry a credential and every field named like a secret. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-api-key"]',
  'req.headers["proxy-authorization"]',
  'headers.authorization',
  'authorization',
  'apiKey',
  'api_key',
  'secret',
  'signingSecret',
  'password',
  '*.apiKey',
  '*.api_key',
  '*.secret',
  '*.signingSecret',
  '*.password',
  '*.authorization',
  '*.*.secret',
  '*.*.apiKey',
];

/** Query parameters whose value is a credential, by name (case-insensitive, `-` or `_` or none). */
const SECRET_PARAM =
  /^(.*[-_]?(key|token|secret|sig|signature|password|passwd|pwd|credential|auth)|x-amz-[\w-]+|access_token|code)$/i;

/** An API key anywhere in free text (a URL path, a message). */
const API_KEY_TEXT = /\bsk_(live|test)_[A-Za-z0-9_-]+/g;

/**
 * A URL (absolute or a path with a query) with every credential replaced by `[redacted]`; text that
 * is not a URL keeps its shape. Never throws: logging must not fail on a malformed URL.
 */
export function scrubUrl(url: string): string {
  let out = url.replace(API_KEY_TEXT, REDACTED);
  out = out.replace(/^([a-z][\w+.-]*:\/\/)[^/@?#]*@/i, `$1${REDACTED}@`);
  const q = out.indexOf('?');
  if (q < 0) return out;
  const hash = out.indexOf('#', q);
  const query = out.slice(q + 1, hash < 0 ? undefined : hash);
  const scrubbed = query
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const rawName = eq < 0 ? pair : pair.slice(0, eq);
      let name = rawName;
      try {
        name = decodeURIComponent(rawName.replace(/\+/g, ' '));
      } catch {
        // A malformed escape: match on the raw name.
      }
      return eq >= 0 && SECRET_PARAM.test(name.trim()) ? `${rawName}=${REDACTED}` : pair;
    })
    .join('&');
  return `${out.slice(0, q + 1)}${scrubbed}${hash < 0 ? '' : out.slice(hash)}`;
}

/** pino serializers for fields that hold a URL (a source, a track or a webhook address): scrubbed. */
export const LOG_SERIALIZERS = {
  url: (value: unknown) => (typeof value === 'string' ? scrubUrl(value) : value),
  sourceUrl: (value: unknown) => (typeof value === 'string' ? scrubUrl(value) : value),
};
