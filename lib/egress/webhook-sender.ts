/**
 * The outbound webhook request (lib/use-cases/webhooks/deliver-webhook.ts) and the address check of
 * an endpoint URL at registration. A webhook URL is chosen by a customer, so this is a request our
 * server makes on a stranger's behalf (SSRF):
 * - the socket resolves the host through the shared guard (public-address.ts): every address
 *   must be public, and the address checked is the address connected to (no DNS-rebinding window);
 *   the host name still goes out as Host and TLS SNI. An address literal is checked here (no
 *   lookup runs for it). Plain http only to 127.0.0.1, and only where the local stack allows it;
 * - no redirect is followed (a 3xx is just a failed attempt);
 * - the whole attempt stops after 10 s, and at most 4 KiB of the answer is read before the
 *   connection is dropped (the status is all a delivery needs).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { DELIVERY_TIMEOUT_MS, MAX_RESPONSE_BYTES } from '../domain/webhooks.js';
import type { WebhookAnswer, WebhookRequest, WebhookSender, WebhookUrlResolver } from '../use-cases/ports/webhooks.js';
import { connectionFailure, guardedLookup, isPublicAddress, resolvesToPublicAddresses, systemResolve, type Resolve } from './public-address.js';

export interface WebhookSenderOptions {
  /** Local stack only: http://127.0.0.1 endpoints. */
  allowLoopback: boolean;
  timeoutMs?: number;
  resolve?: Resolve;
}

export class HttpWebhookSender implements WebhookSender {
  private readonly timeoutMs: number;

  constructor(private readonly options: WebhookSenderOptions) {
    this.timeoutMs = options.timeoutMs ?? DELIVERY_TIMEOUT_MS;
  }

  send(request: WebhookRequest): Promise<WebhookAnswer> {
    const started = performance.now();
    const elapsed = (): number => Math.round(performance.now() - started);
    let url: URL;
    try {
      url = new URL(request.url);
    } catch {
      return Promise.resolve({ statusCode: null, latencyMs: 0, error: 'the URL is not valid' });
    }
    const isHttp = url.protocol === 'http:';
    const loopbackAllowed = this.options.allowLoopback && isHttp && url.hostname === '127.0.0.1';
    if (isHttp ? !loopbackAllowed : url.protocol !== 'https:') {
      return Promise.resolve({ statusCode: null, latencyMs: 0, error: 'only https URLs are delivered to' });
    }
    const literal = url.hostname.replace(/^\[|\]$/g, '');
    if (isIP(literal) !== 0 && !isPublicAddress(literal) && !loopbackAllowed) {
      return Promise.resolve({ statusCode: null, latencyMs: 0, error: 'the host is not a public address' });
    }
    return new Promise((resolvePromise) => {
      let settled = false;
      const finish = (answer: Omit<WebhookAnswer, 'latencyMs'>): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        resolvePromise({ ...answer, latencyMs: elapsed() });
      };
      const send = isHttp ? httpRequest : httpsRequest;
      const outgoing = send(
        url,
        {
          method: 'POST',
          headers: { ...request.headers, 'content-length': String(Buffer.byteLength(request.body)) },
          lookup: guardedLookup({ allowLoopback: loopbackAllowed, resolve: this.options.resolve ?? systemResolve }),
          // No connection reuse: each attempt resolves and checks the address again.
          agent: false,
        },
        (response: IncomingMessage) => {
          const statusCode = response.statusCode ?? 0;
          let size = 0;
          response.on('data', (chunk: Buffer) => {
            size += chunk.length;
            // Enough read: the answer's body is not needed, and a huge one must not cost us.
            if (size > MAX_RESPONSE_BYTES) {
              finish({ statusCode, error: null });
              outgoing.destroy();
            }
          });
          response.on('end', () => finish({ statusCode, error: null }));
          response.on('error', () => finish({ statusCode, error: null }));
          response.on('close', () => finish({ statusCode, error: null }));
        },
      );
      const deadline = setTimeout(() => {
        finish({ statusCode: null, error: `no answer within ${this.timeoutMs / 1000} s` });
        outgoing.destroy();
      }, this.timeoutMs);
      outgoing.on('error', (error: NodeJS.ErrnoException) => {
        finish({ statusCode: null, error: connectionFailure(error) });
      });
      outgoing.end(request.body);
    });
  }
}

/** Registration's check: every address of the host is public (DNS as the delivery will see it). */
export class DnsWebhookUrlResolver implements WebhookUrlResolver {
  constructor(private readonly resolve: Resolve = systemResolve) {}

  check(hostname: string): Promise<'public' | 'not_public' | 'unresolved'> {
    return resolvesToPublicAddresses(hostname, this.resolve);
  }
}
