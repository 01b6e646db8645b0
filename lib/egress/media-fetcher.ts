/**
 * The fetch of a media import's `sourceUrl` (lib/use-cases/media-import.ts). The URL is chosen by
 * a customer, so this is a request our server makes on a stranger's behalf (SSRF), guarded as
 * webhook deliveries are (public-address.ts): every address the socket connects to must be public
 * (checked in the socket's own lookup, so no DNS-rebinding window), an address literal is checked
 * here, plain http only to 127.0.0.1 and only where the local stack allows it. Beyond that:
 * - redirects are followed by hand, at most MAX_IMPORT_REDIRECTS, each new URL checked again;
 * - one deadline covers everything (connecting, redirects, the body): past it the transfer is cut;
 * - the body is handed over as it arrives (the caller counts it and stops at the type's limit).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { IMPORT_TIMEOUT_MS, MAX_IMPORT_REDIRECTS } from '../domain/media-import.js';
import { MediaFetchError, type FetchedSource, type MediaSourceFetcher } from '../use-cases/ports/media-import.js';
import { connectionFailure, guardedLookup, isPublicAddress, systemResolve, type Resolve } from './public-address.js';

export interface MediaFetcherOptions {
  /** Local stack only: http://127.0.0.1 sources. */
  allowLoopback: boolean;
  timeoutMs?: number;
  resolve?: Resolve;
}

const seconds = (ms: number): string => `${Math.round(ms / 1000)} s`;

export class HttpMediaFetcher implements MediaSourceFetcher {
  private readonly timeoutMs: number;

  constructor(private readonly options: MediaFetcherOptions) {
    this.timeoutMs = options.timeoutMs ?? IMPORT_TIMEOUT_MS;
  }

  async open(raw: string): Promise<FetchedSource> {
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(), this.timeoutMs);
    const tooSlow = () => new MediaFetchError(`The file did not arrive within ${seconds(this.timeoutMs)}.`);
    try {
      let url = this.checked(raw);
      for (let redirects = 0; ; redirects++) {
        const response = await this.get(url, deadline.signal, tooSlow);
        const status = response.statusCode ?? 0;
        if (status >= 300 && status < 400 && response.headers.location) {
          response.destroy();
          if (redirects >= MAX_IMPORT_REDIRECTS) throw new MediaFetchError(`The URL redirects more than ${MAX_IMPORT_REDIRECTS} times.`);
          url = this.checked(new URL(response.headers.location, url).href);
          continue;
        }
        if (status < 200 || status >= 300) {
          response.destroy();
          throw new MediaFetchError(status === 404 || status === 410 ? `The file was not found there (HTTP ${status}).` : `The server answered HTTP ${status}.`);
        }
        const length = Number(response.headers['content-length']);
        const body = async function* (): AsyncGenerator<Uint8Array> {
          try {
            for await (const chunk of response) yield chunk as Buffer;
          } catch (error) {
            throw deadline.signal.aborted ? tooSlow() : error instanceof MediaFetchError ? error : new MediaFetchError('The connection broke before the whole file arrived.');
          } finally {
            clearTimeout(timer);
            response.destroy();
          }
        };
        deadline.signal.addEventListener('abort', () => response.destroy(tooSlow()), { once: true });
        return {
          declaredBytes: Number.isSafeInteger(length) && length >= 0 ? length : null,
          body: body(),
          cancel: () => {
            clearTimeout(timer);
            response.destroy();
          },
        };
      }
    } catch (error) {
      clearTimeout(timer);
      throw error;
    }
  }

  /** The URL when it may be fetched at all (scheme, an address literal); MediaFetchError otherwise. */
  private checked(raw: string): URL {
    let url: URL;
    try {
      url = new URL(raw);
    } catch {
      throw new MediaFetchError('The URL is not valid.');
    }
    const loopback = this.options.allowLoopback && url.protocol === 'http:' && url.hostname === '127.0.0.1';
    if (url.protocol !== 'https:' && !loopback) throw new MediaFetchError('Only https URLs are fetched.');
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && !isPublicAddress(literal) && !loopback) throw new MediaFetchError('The URL is not a public address.');
    return url;
  }

  private get(url: URL, signal: AbortSignal, tooSlow: () => MediaFetchError): Promise<IncomingMessage> {
    const loopback = this.options.allowLoopback && url.protocol === 'http:' && url.hostname === '127.0.0.1';
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(tooSlow());
      const send = url.protocol === 'http:' ? httpRequest : httpsRequest;
      const outgoing = send(url, {
        method: 'GET',
        headers: { accept: '*/*', 'user-agent': 'social-publishing-media-import' },
        lookup: guardedLookup({ allowLoopback: loopback, resolve: this.options.resolve ?? systemResolve }),
        // No connection reuse: each request resolves and checks the address again.
        agent: false,
      });
      const onAbort = () => outgoing.destroy(tooSlow());
      signal.addEventListener('abort', onAbort, { once: true });
      outgoing.on('response', (response) => {
        signal.removeEventListener('abort', onAbort);
        resolve(response);
      });
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        signal.removeEventListener('abort', onAbort);
        if (error instanceof MediaFetchError) return reject(error);
        const why = connectionFailure(error);
        reject(new MediaFetchError(`${why.charAt(0).toUpperCase()}${why.slice(1)}.`));
      });
      outgoing.end();
    });
  }
}
