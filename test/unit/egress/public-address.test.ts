/**
 * The egress guard's address rule (lib/egress/public-address.ts): only global unicast addresses,
 * also when an IPv4 address is carried inside an IPv6 one (mapped, compatible, translated, 6to4,
 * Teredo), and the host of a URL written as an IPv6 literal.
 */
import { describe, expect, it } from 'vitest';
import { ADDRESS_NOT_ALLOWED, connectionFailure, isPublicAddress, resolvesToPublicAddresses } from '../../../lib/egress/public-address.js';

describe('isPublicAddress', () => {
  it.each([
    // IPv4 special-purpose ranges.
    '0.0.0.0', '10.1.2.3', '100.64.0.1', '127.0.0.1', '169.254.169.254', '172.16.0.1', '192.0.0.8', '192.0.2.1', '192.168.1.1',
    '198.18.0.1', '198.51.100.1', '203.0.113.1', '224.0.0.1', '240.0.0.1', '255.255.255.255',
    // IPv6: unspecified, loopback, mapped, link-local, unique local, multicast, documentation.
    '::', '::1', '::ffff:127.0.0.1', '::ffff:10.0.0.1', 'fe80::1', 'fd00::1', 'ff02::1', '2001:db8::1',
    // What the review found the guard let through.
    '::7f00:1', '::127.0.0.1', '::a00:1', // ::/96, IPv4-compatible (deprecated): loopback, 10.0.0.1
    '2002:7f00:1::', '2002:a9fe:a9fe::1', // 6to4 carrying 127.0.0.1, 169.254.169.254
    '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
    '64:ff9b:1::a00:1', // RFC 8215 local-use IPv4/IPv6 translation
    'fec0::1', // deprecated site-local
    '64:ff9b::7f00:1', // RFC 6052 translation of 127.0.0.1
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPublicAddress(address)).toBe(false);
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.216.34', '2606:4700:4700::1111', '2a00:1450:4001:80b::200e', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });

  it('refuses a URL host written as a bracketed literal of such an address', async () => {
    expect(await resolvesToPublicAddresses('[::7f00:1]')).toBe('not_public');
    expect(await resolvesToPublicAddresses('[2606:4700:4700::1111]')).toBe('public');
  });
});

describe('connectionFailure', () => {
  const failure = (code: string | undefined) => connectionFailure(Object.assign(new Error('socket'), code === undefined ? {} : { code }));

  it('says why a request to a customer URL got no answer, alike for webhooks and media imports', () => {
    expect(failure(ADDRESS_NOT_ALLOWED)).toBe("the host's address is not public");
    expect(failure('ENOTFOUND')).toBe('the host does not resolve');
    expect(failure('ECONNREFUSED')).toBe('the server refused the connection');
    expect(failure('ECONNRESET')).toBe('the request failed (ECONNRESET)');
    expect(failure(undefined)).toBe('the request failed (network error)');
  });
});
