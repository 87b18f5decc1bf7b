import { lookup as dnsLookup, type LookupAddress, type LookupOptions } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { ApiError } from '../domain/errors.ts';
import { classifyIp, type IpClass } from './ip-ranges.ts';

/**
 * The SSRF guard for every request Stemforge makes on a user's behalf (source files, webhooks).
 *
 * Two checks, because one is not enough:
 * - `assertPublicUrl` at creation time, so a bad address is refused with a clear 400 up front;
 * - `createGuardedLookup` inside the HTTP agent, which re-checks every address *at connect time*.
 *   A name can resolve to a public address when the job is created and to 127.0.0.1 a second later
 *   (DNS rebinding), and a public server can redirect to a private one; only the connect-time check
 *   sees the address actually dialled. See the OWASP SSRF Prevention Cheat Sheet.
 */
export interface AddressPolicy {
  /** ALLOW_PRIVATE_URLS: when true every address is allowed (self-hosted setups on a LAN, tests). */
  allowPrivate: boolean;
  /**
   * Replaces the built-in public/non-public rule. A seam for tests that need one loopback address
   * allowed and another refused (to prove each redirect hop is re-checked); not for production use.
   */
  isAllowedAddress?: (address: string) => boolean;
}

/** Raised by the guarded lookup (and literal checks); the callers map it to URL_NOT_ALLOWED. */
export class AddressNotAllowedError extends Error {
  readonly code = 'ERR_ADDRESS_NOT_ALLOWED';

  constructor(
    readonly hostname: string,
    readonly address: string,
    readonly ipClass: IpClass,
  ) {
    const via = hostname === address ? address : `${hostname} (${address})`;
    super(`${via} is a ${ipClass} address; only public addresses can be reached`);
  }
}

export function isAddressAllowed(address: string, policy: AddressPolicy): boolean {
  if (policy.isAllowedAddress) return policy.isAllowedAddress(address);
  return policy.allowPrivate || classifyIp(address) === 'public';
}

/** The host of a URL without IPv6 brackets or a trailing root dot. */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '');
}

/**
 * Parses an outbound URL and checks its shape: http or https only, no user name or password
 * (credentials in URLs leak into logs and are a classic parser-confusion trick).
 */
export function parseOutboundUrl(input: string | URL): URL {
  let url: URL;
  try {
    url = new URL(String(input));
  } catch {
    throw new ApiError('URL_NOT_ALLOWED', 'The URL is not a valid absolute http(s) URL.');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new ApiError('URL_NOT_ALLOWED', `Only http and https URLs are allowed, not "${url.protocol}".`);
  }
  if (url.username || url.password) {
    throw new ApiError('URL_NOT_ALLOWED', 'URLs with a user name or password are not allowed.');
  }
  if (!hostOf(url)) throw new ApiError('URL_NOT_ALLOWED', 'The URL has no host.');
  return url;
}

/**
 * Checks a URL whose host is an IP literal. Node's `net.connect` skips the lookup function for
 * literals, so the connect-time guard never sees them: every request must call this first.
 */
export function checkLiteralHost(url: URL, policy: AddressPolicy): void {
  const host = hostOf(url);
  if (isIP(host) && !isAddressAllowed(host, policy)) {
    throw new AddressNotAllowedError(host, host, classifyIp(host));
  }
}

function notAllowed(err: AddressNotAllowedError): ApiError {
  return new ApiError('URL_NOT_ALLOWED', `The URL is not allowed: ${err.message}.`);
}

/**
 * Creation-time check: shape, then every address the host resolves to must be allowed.
 * Returns the parsed URL. Throws ApiError URL_NOT_ALLOWED naming the problem.
 */
export async function assertPublicUrl(input: string | URL, policy: AddressPolicy): Promise<URL> {
  const url = parseOutboundUrl(input);
  try {
    checkLiteralHost(url, policy);
  } catch (err) {
    if (err instanceof AddressNotAllowedError) throw notAllowed(err);
    throw err;
  }
  const host = hostOf(url);
  if (isIP(host) || (policy.allowPrivate && !policy.isAllowedAddress)) return url;
  let addresses: LookupAddress[];
  try {
    addresses = await new Promise<LookupAddress[]>((resolve, reject) =>
      dnsLookup(host, { all: true, verbatim: true }, (err, list) => (err ? reject(err) : resolve(list))),
    );
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new ApiError('URL_NOT_ALLOWED', `The host "${host}" could not be resolved (${code}).`);
  }
  for (const { address } of addresses) {
    if (!isAddressAllowed(address, policy)) {
      throw notAllowed(new AddressNotAllowedError(host, address, classifyIp(address)));
    }
  }
  return url;
}

/**
 * A `lookup` for node's http(s).request / Agent that refuses the connection when any resolved
 * address is not allowed. Refusing on *any* (not just the first) matters: with Happy Eyeballs
 * (`autoSelectFamily`, on by default since Node 20) net may dial any address of the list.
 */
export function createGuardedLookup(policy: AddressPolicy): LookupFunction {
  return (hostname, options: LookupOptions, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, list) => {
      if (err) return callback(err, '', 0);
      const addresses = options.family ? list.filter((a) => a.family === options.family) : list;
      for (const { address } of addresses) {
        if (!isAddressAllowed(address, policy)) {
          return callback(new AddressNotAllowedError(hostname, address, classifyIp(address)), '', 0);
        }
      }
      const [first] = addresses;
      if (!first) {
        const none: NodeJS.ErrnoException = new Error(`getaddrinfo ENOTFOUND ${hostname}`);
        none.code = 'ENOTFOUND';
        return callback(none, '', 0);
      }
      if (options.all) return callback(null, addresses);
      callback(null, first.address, first.family);
    });
  };
}
