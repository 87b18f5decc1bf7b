import { describe, expect, it } from 'vitest';
import { lookup } from 'node:dns/promises';
import type { ApiError } from '../../src/domain/errors.ts';
import { classifyIp, parseIPv6 } from '../../src/net/ip-ranges.ts';
import {
  assertPublicUrl,
  AddressNotAllowedError,
  createGuardedLookup,
  parseOutboundUrl,
} from '../../src/net/address-guard.ts';

describe('classifyIp', () => {
  const cases: [string, string][] = [
    // IPv4
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'reserved'],
    ['10.0.0.1', 'private'],
    ['10.255.255.255', 'private'],
    ['11.0.0.1', 'public'],
    ['100.64.0.1', 'private'],
    ['100.127.255.255', 'private'],
    ['100.128.0.0', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['172.15.255.255', 'public'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['172.32.0.0', 'public'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['192.168.1.1', 'private'],
    ['198.18.0.1', 'reserved'],
    ['198.19.255.255', 'reserved'],
    ['198.20.0.0', 'public'],
    ['198.51.100.7', 'reserved'],
    ['203.0.113.9', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    // IPv6
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:10.1.2.3', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['64:ff9b::a9fe:a9fe', 'link-local'], // NAT64 of 169.254.169.254
    ['64:ff9b::808:808', 'public'],
    ['2002:7f00:1::', 'loopback'], // 6to4 of 127.0.0.1
    ['2002:0808:0808::1', 'public'],
    ['::127.0.0.1', 'reserved'],
    ['fc00::1', 'private'],
    ['fd12:3456:789a::1', 'private'],
    ['fe80::1', 'link-local'],
    ['fe80::1%eth0', 'link-local'],
    ['febf::1', 'link-local'],
    ['fec0::1', 'private'],
    ['ff02::1', 'multicast'],
    ['2001:db8::1', 'reserved'],
    ['2001:0:4136:e378::1', 'reserved'], // Teredo
    ['100::1', 'reserved'],
    ['2606:4700:4700::1111', 'public'],
    ['2a00:1450:4001:80b::200e', 'public'],
    ['4000::1', 'reserved'], // outside global unicast 2000::/3
    // not IPs
    ['example.com', 'invalid'],
    ['999.1.1.1', 'invalid'],
  ];
  it.each(cases)('%s is %s', (ip, cls) => {
    expect(classifyIp(ip)).toBe(cls);
  });

  it('parses every IPv6 textual form to the same number', () => {
    expect(parseIPv6('0:0:0:0:0:ffff:7f00:0001')).toBe(parseIPv6('::ffff:127.0.0.1'));
    expect(parseIPv6('2001:db8:0:0:0:0:0:1')).toBe(parseIPv6('2001:db8::1'));
    expect(parseIPv6('::1')).toBe(1n);
  });
});

describe('parseOutboundUrl', () => {
  it.each([
    ['ftp://example.com/a.mp3', /http and https/],
    ['file:///etc/passwd', /http and https/],
    ['javascript:alert(1)', /http and https/],
    ['http://user:pw@example.com/a.mp3', /user name or password/],
    ['http://user@example.com/a.mp3', /user name or password/],
    ['not a url', /not a valid/],
    ['/relative/path.mp3', /not a valid/],
  ])('refuses %s', (url, message) => {
    expect(() => parseOutboundUrl(url)).toThrow(message);
    try {
      parseOutboundUrl(url);
    } catch (err) {
      expect((err as ApiError).code).toBe('URL_NOT_ALLOWED');
    }
  });

  it('accepts http and https', () => {
    expect(parseOutboundUrl('https://example.com/a.mp3').hostname).toBe('example.com');
    expect(parseOutboundUrl('HTTP://Example.COM:8080/a.mp3').host).toBe('example.com:8080');
  });
});

describe('assertPublicUrl', () => {
  const deny = { allowPrivate: false };

  // The WHATWG URL parser canonicalises odd IPv4 spellings, so they are caught as the literal they mean.
  it.each([
    'http://127.0.0.1/',
    'http://2130706433/',
    'http://0x7f.1/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1:8080/a.mp3',
    'http://0.0.0.0/',
    'http://localhost/',
    'http://localhost./',
  ])('refuses %s by default', async (url) => {
    await expect(assertPublicUrl(url, deny)).rejects.toMatchObject({ code: 'URL_NOT_ALLOWED' });
  });

  it('names the address and its class in the message', async () => {
    await expect(assertPublicUrl('http://localhost:9/', deny)).rejects.toThrow(
      /localhost \(127\.0\.0\.1\) is a loopback address/,
    );
  });

  it('allows private addresses when the operator opts in', async () => {
    const url = await assertPublicUrl('http://127.0.0.1:8080/a.mp3', { allowPrivate: true });
    expect(url.port).toBe('8080');
    await expect(assertPublicUrl('http://localhost/', { allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });

  it('still refuses bad schemes and credentials with allowPrivate', async () => {
    await expect(assertPublicUrl('file:///etc/passwd', { allowPrivate: true })).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
    await expect(assertPublicUrl('http://a:b@localhost/', { allowPrivate: true })).rejects.toMatchObject({
      code: 'URL_NOT_ALLOWED',
    });
  });

  it('refuses a host name that does not resolve', async () => {
    await expect(assertPublicUrl('http://no-such-host.invalid/', deny)).rejects.toThrow(/could not be resolved/);
  });
});

describe('createGuardedLookup', () => {
  const run = (policy: { allowPrivate: boolean }, host: string, all: boolean) =>
    new Promise<unknown>((resolve, reject) =>
      createGuardedLookup(policy)(host, { all }, (err, address, family) =>
        err ? reject(err) : resolve(all ? address : { address, family }),
      ),
    );

  it('refuses a name that resolves to loopback, in both callback shapes', async () => {
    await expect(run({ allowPrivate: false }, 'localhost', false)).rejects.toBeInstanceOf(AddressNotAllowedError);
    await expect(run({ allowPrivate: false }, 'localhost', true)).rejects.toBeInstanceOf(AddressNotAllowedError);
  });

  it('passes the resolution through when allowed', async () => {
    const expected = await lookup('localhost', { all: true });
    expect(await run({ allowPrivate: true }, 'localhost', true)).toEqual(expected);
    expect(await run({ allowPrivate: true }, 'localhost', false)).toEqual({
      address: expected[0]!.address,
      family: expected[0]!.family,
    });
  });
});
