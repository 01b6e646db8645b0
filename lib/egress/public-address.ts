/**
 * The one SSRF guard of every request our server makes to a URL a customer chose (an assistant's
 * client metadata document, a webhook endpoint): the addresses such a URL may reach, and a socket
 * `lookup` that refuses any other. Because the check runs inside the socket's own lookup, the
 * address checked is the address connected to (no window for DNS rebinding between a check and the
 * connection), while the URL's host name still goes out as Host and TLS SNI.
 */
import dns, { type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import ipaddr from 'ipaddr.js';

/*
 * The ranges come from ipaddr.js, which keeps IANA's special-purpose address registries (IPv4 and
 * IPv6) as named ranges: an address is public only where it names none ("unicast"). IPv6 is also
 * held to IANA's global unicast allocation (2000::/3), which leaves out what the special-purpose
 * registry does not list but no public service lives at (the deprecated IPv4-compatible ::/96, the
 * site-local fec0::/10). An IPv4 address carried in an IPv6 one (::ffff:a.b.c.d) is judged as IPv4.
 */
const GLOBAL_UNICAST = ipaddr.IPv6.parseCIDR('2000::/3');

/** True for addresses no public service can live at (private ranges, loopback, metadata service, ...). */
export function isPublicAddress(address: string): boolean {
  if (isIP(address) === 0) return false;
  const parsed = ipaddr.parse(address);
  if (parsed.kind() === 'ipv4') return parsed.range() === 'unicast';
  const v6 = parsed as ipaddr.IPv6;
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address().range() === 'unicast';
  return v6.match(GLOBAL_UNICAST) && v6.range() === 'unicast';
}

/** The error a guarded lookup fails the connection with. */
export const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';

/**
 * Why a request to a customer's URL (a webhook, a media import) never got an answer, from its
 * socket error, in words each caller puts in its own sentence: the same causes, said alike.
 */
export function connectionFailure(error: NodeJS.ErrnoException): string {
  if (error.code === ADDRESS_NOT_ALLOWED) return "the host's address is not public";
  if (error.code === 'ENOTFOUND') return 'the host does not resolve';
  if (error.code === 'ECONNREFUSED') return 'the server refused the connection';
  return `the request failed (${error.code ?? 'network error'})`;
}

/** How names are resolved: node's dns.lookup by default; tests pass a resolver that answers what they need. */
export type Resolve = (hostname: string, callback: (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void) => void;

export const systemResolve: Resolve = (hostname, callback) => {
  // dns.lookup read at call time, so the local stack's own resolution of *.localhost applies too.
  dns.lookup(hostname, { all: true }, (error, addresses) => callback(error, Array.isArray(addresses) ? addresses : []));
};

/**
 * A socket lookup that resolves the host and refuses the connection (EADDRNOTALLOWED) unless every
 * address is public, or is 127.0.0.1 where `allowLoopback` says so (local stack only).
 */
export function guardedLookup(options: { allowLoopback: boolean; resolve?: Resolve }): LookupFunction {
  const resolveName = options.resolve ?? systemResolve;
  return (hostname, lookupOptions, callback) => {
    resolveName(hostname, (error, list) => {
      if (error) return callback(error, '', 0);
      const allowed = list.filter((entry) => isPublicAddress(entry.address) || (options.allowLoopback && entry.address === '127.0.0.1'));
      const first = allowed[0];
      if (!first || allowed.length !== list.length) {
        return callback(Object.assign(new Error('address not allowed'), { code: ADDRESS_NOT_ALLOWED }), '', 0);
      }
      if ((lookupOptions as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
      return callback(null, first.address, first.family);
    });
  };
}

/** Resolves `hostname` and says whether every address is public (false also when it does not resolve). */
export function resolvesToPublicAddresses(hostname: string, resolve: Resolve = systemResolve): Promise<'public' | 'not_public' | 'unresolved'> {
  const literal = hostname.replace(/^\[|\]$/g, '');
  if (isIP(literal) !== 0) return Promise.resolve(isPublicAddress(literal) ? 'public' : 'not_public');
  return new Promise((done) => {
    resolve(hostname, (error, list) => {
      if (error || list.length === 0) return done('unresolved');
      done(list.every((entry) => isPublicAddress(entry.address)) ? 'public' : 'not_public');
    });
  });
}
