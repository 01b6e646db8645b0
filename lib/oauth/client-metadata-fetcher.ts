/**
 * Fetches an assistant's Client ID Metadata Document: the client_id is a URL anyone can choose, so
 * this is a request our server makes on a stranger's behalf (SSRF). It therefore:
 * - speaks https only (http://127.0.0.1 only when the local stack allows loopback clients);
 * - resolves the host itself (lib/egress/public-address.ts, shared with webhook delivery) and refuses private, loopback, link-local, multicast and other
 *   special-purpose addresses (checked in the socket's own `lookup`, so a DNS answer that changes
 *   between a check and the connection - rebinding - cannot slip through);
 * - follows no redirect (a 3xx is a refusal), accepts only 200 with a JSON content type;
 * - stops after 5 s and after 5 KiB (the size the metadata-document draft suggests).
 * A small in-memory cache (5 minutes, bounded) saves a fetch per authorization of the same client.
 */
import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { ADDRESS_NOT_ALLOWED, guardedLookup, isPublicAddress } from '../egress/public-address.js';
import { OAuthError } from './errors.js';
import type { ClientMetadataFetcher } from './model.js';

export const MAX_METADATA_DOCUMENT_BYTES = 5 * 1024;
export const METADATA_FETCH_TIMEOUT_MS = 5_000;
const CACHE_MS = 5 * 60_000;
const CACHE_ENTRIES = 500;

export { isPublicAddress };

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
          lookup: guardedLookup({ allowLoopback: this.options.allowLoopback }),
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
        reject(refuse(error.code === ADDRESS_NOT_ALLOWED ? 'its host is not a public address' : 'it could not be downloaded'));
      });
      request.end();
    });
  }
}
