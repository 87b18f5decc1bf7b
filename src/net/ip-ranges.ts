import { isIPv4, isIPv6 } from 'node:net';

/**
 * What kind of address an IP is, for the outbound-request guard (SSRF defence).
 * Only `public` addresses may be reached unless the operator sets ALLOW_PRIVATE_URLS=true.
 *
 * Ranges follow the IANA special-purpose address registries (RFC 6890 and its updates):
 * https://www.iana.org/assignments/iana-ipv4-special-registry and iana-ipv6-special-registry.
 */
export type IpClass =
  | 'public'
  | 'private' // RFC 1918, RFC 6598 shared (CGNAT), RFC 4193 unique-local
  | 'loopback'
  | 'link-local'
  | 'unspecified'
  | 'multicast'
  | 'reserved' // documentation, benchmarking, future use, broadcast, deprecated transition ranges
  | 'invalid'; // not an IP literal at all

interface Range4 {
  base: number;
  bits: number;
  cls: Exclude<IpClass, 'public' | 'invalid'>;
}

const v4 = (cidr: string, cls: Range4['cls']): Range4 => {
  const [ip, bits] = cidr.split('/');
  return { base: parseIPv4(ip ?? '')!, bits: Number(bits), cls };
};

/** Non-public IPv4 ranges; the first match wins, so the narrow ranges come first. */
const IPV4_RANGES: Range4[] = [
  v4('0.0.0.0/32', 'unspecified'),
  v4('0.0.0.0/8', 'reserved'), // "this network"; Linux connects 0.x to the local host
  v4('10.0.0.0/8', 'private'),
  v4('100.64.0.0/10', 'private'), // RFC 6598 carrier-grade NAT
  v4('127.0.0.0/8', 'loopback'),
  v4('169.254.0.0/16', 'link-local'), // includes the 169.254.169.254 cloud metadata endpoint
  v4('172.16.0.0/12', 'private'),
  v4('192.0.0.0/24', 'reserved'), // IETF protocol assignments
  v4('192.0.2.0/24', 'reserved'), // TEST-NET-1
  v4('192.88.99.0/24', 'reserved'), // deprecated 6to4 relay anycast
  v4('192.168.0.0/16', 'private'),
  v4('198.18.0.0/15', 'reserved'), // benchmarking (RFC 2544)
  v4('198.51.100.0/24', 'reserved'), // TEST-NET-2
  v4('203.0.113.0/24', 'reserved'), // TEST-NET-3
  v4('224.0.0.0/4', 'multicast'),
  v4('240.0.0.0/4', 'reserved'), // future use, and 255.255.255.255 broadcast
];

/** Parses dotted-quad IPv4 (the only form `new URL()` and DNS produce) to an unsigned 32-bit number. */
export function parseIPv4(ip: string): number | null {
  if (!isIPv4(ip)) return null;
  return ip.split('.').reduce((acc, part) => acc * 256 + Number(part), 0);
}

/** Parses an IPv6 address (any textual form, including an embedded dotted quad) to a 128-bit bigint. */
export function parseIPv6(input: string): bigint | null {
  const ip = input.replace(/^\[|\]$/g, '').replace(/%.*$/, ''); // brackets and zone id
  if (!isIPv6(ip)) return null;
  let text = ip;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const n = parseIPv4(dotted[1] ?? '')!;
    text = `${text.slice(0, dotted.index)}${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, tail] = text.includes('::') ? text.split('::') : [text, undefined];
  const headParts = head ? head.split(':') : [];
  const tailParts = tail ? tail.split(':') : [];
  const missing = 8 - headParts.length - tailParts.length;
  const groups = tail === undefined ? headParts : [...headParts, ...Array(missing).fill('0'), ...tailParts];
  return groups.reduce((acc, g) => (acc << 16n) | BigInt(parseInt(g, 16)), 0n);
}

function inRange6(value: bigint, prefix: bigint, bits: number): boolean {
  const shift = BigInt(128 - bits);
  return value >> shift === prefix >> shift;
}

const P = (text: string) => parseIPv6(text)!;

function classifyV4Number(n: number): IpClass {
  for (const r of IPV4_RANGES) {
    const shift = 32 - r.bits;
    // Division instead of >>> because shift may be 32 (a /0 never occurs, but /32 gives shift 0).
    if (Math.floor(n / 2 ** shift) === Math.floor(r.base / 2 ** shift)) return r.cls;
  }
  return 'public';
}

function classifyV6(n: bigint): IpClass {
  if (n === 0n) return 'unspecified';
  if (n === 1n) return 'loopback';
  // Forms that embed an IPv4 address are judged by that address, so ::ffff:127.0.0.1 is loopback.
  if (inRange6(n, P('::ffff:0:0'), 96)) return classifyV4Number(Number(n & 0xffffffffn)); // IPv4-mapped
  if (inRange6(n, P('64:ff9b::'), 96)) return classifyV4Number(Number(n & 0xffffffffn)); // NAT64 (RFC 6052)
  if (inRange6(n, P('2002::'), 16)) return classifyV4Number(Number((n >> 80n) & 0xffffffffn)); // 6to4
  if (inRange6(n, P('::'), 96)) return 'reserved'; // deprecated IPv4-compatible ::a.b.c.d
  if (inRange6(n, P('64:ff9b:1::'), 48)) return 'private'; // local-use NAT64 (RFC 8215)
  if (inRange6(n, P('100::'), 64)) return 'reserved'; // discard-only
  if (inRange6(n, P('2001::'), 32)) return 'reserved'; // Teredo: tunnels to arbitrary IPv4
  if (inRange6(n, P('2001:db8::'), 32)) return 'reserved'; // documentation
  if (inRange6(n, P('2001:2::'), 48)) return 'reserved'; // benchmarking
  if (inRange6(n, P('fc00::'), 7)) return 'private'; // unique-local (RFC 4193)
  if (inRange6(n, P('fe80::'), 10)) return 'link-local';
  if (inRange6(n, P('fec0::'), 10)) return 'private'; // deprecated site-local
  if (inRange6(n, P('ff00::'), 8)) return 'multicast';
  // Only global unicast (2000::/3) is routable on the internet; everything else is unassigned.
  if (!inRange6(n, P('2000::'), 3)) return 'reserved';
  return 'public';
}

/** Classifies an IP literal (IPv4 dotted quad or IPv6, brackets allowed). */
export function classifyIp(ip: string): IpClass {
  const n4 = parseIPv4(ip);
  if (n4 !== null) return classifyV4Number(n4);
  const n6 = parseIPv6(ip);
  if (n6 !== null) return classifyV6(n6);
  return 'invalid';
}
