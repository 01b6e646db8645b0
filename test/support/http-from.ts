/**
 * Requests to the local API from a chosen loopback source address (127.0.0.0/8 is all loopback on
 * Linux), so a test sees its own client-address rate bucket - the API reads the address from the
 * TCP connection, as API Gateway does, and no test hook is needed. Same response shape as
 * test/support/http.ts; node:http rather than fetch because fetch cannot pick a local address and
 * refuses some header names a property test wants to send.
 */
import { request as httpRequest } from 'node:http';
import type { ApiResponse } from './http.js';

export interface RawRequest {
  method: string;
  /** Absolute URL; its path and query are sent exactly as given. */
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** 127.0.0.x; default 127.0.0.1. */
  sourceAddress?: string;
}

export function sendFrom<T = unknown>(options: RawRequest): Promise<ApiResponse<T>> {
  const url = new URL(options.url);
  // `new URL` normalises; send the path and query exactly as the caller wrote them.
  const target = options.url.slice(url.origin.length) || '/';
  return new Promise((resolvePromise, reject) => {
    const req = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: options.method,
        path: target,
        localAddress: options.sourceAddress ?? '127.0.0.1',
        headers: {
          ...(options.body === undefined ? {} : { 'content-length': String(Buffer.byteLength(options.body)) }),
          ...options.headers,
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('error', reject);
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const headers: Record<string, string> = {};
          for (const [name, value] of Object.entries(res.headers)) {
            if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
          }
          let body: unknown = text;
          if ((headers['content-type'] ?? '').includes('json') && text !== '') {
            try {
              body = JSON.parse(text);
            } catch {
              body = text;
            }
          }
          resolvePromise({ status: res.statusCode ?? 0, headers, body: body as T, text });
        });
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

/** A client bound to one source address and (optionally) one key, for `/path?query` under baseUrl. */
export function clientFrom(baseUrl: string, sourceAddress: string, key?: string) {
  return <T = unknown>(method: string, path: string, headers: Record<string, string> = {}): Promise<ApiResponse<T>> =>
    sendFrom<T>({
      method,
      url: `${baseUrl}${path}`,
      sourceAddress,
      headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
    });
}

let nextHost = 2;

/** A loopback address no other test of this file uses: its own client-address bucket. */
export function freshSourceAddress(): string {
  const host = nextHost;
  nextHost += 1;
  return `127.0.${Math.floor(host / 250)}.${(host % 250) + 1}`;
}
