/**
 * The one SSRF guard of every request our server makes to a URL a customer chose (an assistant's
 * client metadata document, a webhook endpoint): the addresses such a URL may reach, and a socket
 * `lookup` that refuses any other. Because the check runs inside the socket's own lookup, the
 * address checked is the address connected to (no window for DNS rebinding between a check and the
 * connection), while the URL's host name still goes out as Host and TLS SNI.
 */
import dns, { type LookupAddress } from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

// Two lists: one BlockList holding IPv6 ranges also matches IPv4 addresses through ::ffff:0:0/96.
// Built on first use, not at import: functions that import this module's neighbours but never
// make such a request then leave it out of their bundle.
let blocked: { v4: BlockList; v6: BlockList } | undefined;

function blockedRanges(): { v4: BlockList; v6: BlockList } {
  if (blocked) return blocked;
  const v4 = new BlockList();
  const v6 = new BlockList();
  for (const [network, prefix] of [
    ['0.0.0.0', 8],
    ['10.0.0.0', 8],
    ['100.64.0.0', 10],
    ['127.0.0.0', 8],
    ['169.254.0.0', 16],
    ['172.16.0.0', 12],
    ['192.0.0.0', 24],
    ['192.0.2.0', 24],
    ['192.168.0.0', 16],
    ['198.18.0.0', 15],
    ['198.51.100.0', 24],
    ['203.0.113.0', 24],
    ['224.0.0.0', 4],
    ['240.0.0.0', 4],
  ] as const) {
    v4.addSubnet(network, prefix, 'ipv4');
  }
  for (const [network, prefix] of [
    ['::', 127],
    ['::ffff:0:0', 96],
    ['64:ff9b::', 96],
    ['100::', 64],
    ['2001:db8::', 32],
    ['fc00::', 7],
    ['fe80::', 10],
    ['ff00::', 8],
  ] as const) {
    v6.addSubnet(network, prefix, 'ipv6');
  }
  blocked = { v4, v6 };
  return blocked;
}

/** True for addresses no public service can live at (private ranges, loopback, metadata service, ...). */
export function isPublicAddress(address: string): boolean {
  const family = isIP(address);
  const { v4: blockedV4, v6: blockedV6 } = blockedRanges();
  if (family === 4) return !blockedV4.check(address, 'ipv4');
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
    if (mapped?.[1]) return !blockedV4.check(mapped[1], 'ipv4');
    return !blockedV6.check(address, 'ipv6');
  }
  return false;
}

/** The error a guarded lookup fails the connection with. */
export const ADDRESS_NOT_ALLOWED = 'EADDRNOTALLOWED';

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
