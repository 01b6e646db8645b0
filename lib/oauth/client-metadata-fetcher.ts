/**
 * Fetches an assistant's Client ID Metadata Document: the client_id is a URL anyone can choose, so
 * this is a request our server makes on a stranger's behalf (SSRF). It therefore:
 * - speaks https only (http://127.0.0.1 only when the local stack allows loopback clients);
 * - resolves the host itself and refuses private, loopback, link-local, multicast and other
 *   special-purpose addresses (checked in the socket's own `lookup`, so a DNS answer that changes
 *   between a check and the connection - rebinding - cannot slip through);
 * - follows no redirect (a 3xx is a refusal), accepts only 200 with a JSON content type;
 * - stops after 5 s and after 5 KiB (the size the metadata-document draft suggests).
 * A small in-memory cache (5 minutes, bounded) saves a fetch per authorization of the same client.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { BlockList, isIP, type LookupFunction } from 'node:net';
import { OAuthError } from './errors.js';
import type { ClientMetadataFetcher } from './model.js';

export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;
export const METADATA_FETCH_TIMEOUT_MS = 5_000;
const CACHE_MS = 5 * 60_000;
const CACHE_ENTRIES = 500;

// Two lists: one BlockList holding IPv6 ranges also matches IPv4 addresses through ::ffff:0:0/96.
// Built on first use, not at import: functions that import this module's neighbours but never
// fetch client metadata (the settings pages, the token endpoint) then leave it out of their bundle.
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

/** True for addresses no public metadata document can live at (private ranges, loopback, metadata service, ...). */
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

function refuse(description: string): OAuthError {
  return new OAuthError('invalid_client', `The client metadata document could not be used: ${description}`);
}

export class HttpClientMetadataFetcher implements ClientMetadataFetcher {
  private readonly cache = new Map<string, { document: unknown; expiresAtMs: number }>();

  constructor(private readonly options: { allowLoopback: boolean }) {}

  async fetch(clientIdUrl: string): Promise<unknown> {
    const cached = this.cache.get(clientIdUrl);
    if (cached && cached.expiresAtMs > Date.now()) return cached.document;
    const document = await this.download(new URL(clientIdUrl));
    if (this.cache.size >= CACHE_ENTRIES) this.cache.clear();
    this.cache.set(clientIdUrl, { document, expiresAtMs: Date.now() + CACHE_MS });
    return document;
  }

  private guardedLookup(): LookupFunction {
    const allowLoopback = this.options.allowLoopback;
    return (hostname, options, callback) => {
      dnsLookup(hostname, { ...options, all: true }, (error, addresses) => {
        if (error) return callback(error, '', 0);
        const list = (Array.isArray(addresses) ? addresses : []) as LookupAddress[];
        const allowed = list.filter((entry) => isPublicAddress(entry.address) || (allowLoopback && entry.address === '127.0.0.1'));
        const first = allowed[0];
        if (!first || allowed.length !== list.length) {
          return callback(Object.assign(new Error('address not allowed'), { code: 'EADDRNOTALLOWED' }), '', 0);
        }
        if ((options as { all?: boolean }).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, allowed);
        return callback(null, first.address, first.family);
      });
    };
  }

  private download(url: URL): Promise<unknown> {
    const isHttp = url.protocol === 'http:';
    if (isHttp && !(this.options.allowLoopback && url.hostname === '127.0.0.1')) return Promise.reject(refuse('only https URLs are fetched'));
    if (!isHttp && url.protocol !== 'https:') return Promise.reject(refuse('only https URLs are fetched'));
    // An address literal is checked here (no lookup runs for it).
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) && !isPublicAddress(literal) && !(this.options.allowLoopback && literal === '127.0.0.1')) {
      return Promise.reject(refuse('its host is not a public address'));
    }
    return new Promise((resolvePromise, reject) => {
      const send = isHttp ? httpRequest : httpsRequest;
      const request = send(
        url,
        {
          method: 'GET',
          headers: { accept: 'application/json' },
          lookup: this.guardedLookup(),
          timeout: METADATA_FETCH_TIMEOUT_MS,
        },
        (response) => {
          const status = response.statusCode ?? 0;
          const type = response.headers['content-type'] ?? '';
          if (status !== 200) {
            response.resume();
            return reject(refuse(status >= 300 && status < 400 ? 'it redirects (redirects are not followed)' : `it answered HTTP ${status}`));
          }
          if (!/^application\/([a-z0-9.+-]*\+)?json\b/i.test(type)) {
            response.resume();
            return reject(refuse('its content type is not JSON'));
          }
          const chunks: Buffer[] = [];
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_METADATA_DOCUMENT_BYTES) {
              request.destroy();
              return reject(refuse(`it is larger than ${MAX_METADATA_DOCUMENT_BYTES} bytes`));
            }
            chunks.push(chunk);
          });
          response.on('end', () => {
            try {
              resolvePromise(JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown);
            } catch {
              reject(refuse('it is not valid JSON'));
            }
          });
          response.on('error', () => reject(refuse('the download failed')));
        },
      );
      const deadline = setTimeout(() => request.destroy(new Error('timeout')), METADATA_FETCH_TIMEOUT_MS);
      request.on('close', () => clearTimeout(deadline));
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', (error: NodeJS.ErrnoException) => {
        reject(refuse(error.code === 'EADDRNOTALLOWED' ? 'its host is not a public address' : 'it could not be downloaded'));
      });
      request.end();
    });
  }
}
