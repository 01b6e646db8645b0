/**
 * The HTTP client for the API under test: `api(baseUrl, key)` sends requests with the bearer key
 * (none when `key` is undefined) and returns status, lower-cased headers and the body (parsed when
 * it is JSON, the text otherwise). Paths are relative to the API base URL (`/posts`) and sent
 * exactly as written.
 *
 * Requests can come from a chosen loopback source address (127.0.0.0/8 is all loopback on Linux),
 * so a test sees its own client-address rate bucket - the API reads the address from the TCP
 * connection, as API Gateway does, and no test hook is needed. node:http rather than fetch because
 * fetch cannot pick a local address and refuses some header names a property test wants to send.
 */
import { request as httpRequest } from 'node:http';

export interface ApiResponse<T = unknown> {
  status: number;
  headers: Record<string, string>;
  body: T;
  /** The body as received. */
  text: string;
}

export interface RequestOptions {
  /** Serialised as JSON (with Content-Type: application/json) unless `rawBody` is given. */
  body?: unknown;
  /** Sent as is (set Content-Type yourself in `headers`). */
  rawBody?: string | Uint8Array;
  headers?: Record<string, string>;
}

export interface ApiClient {
  request<T = unknown>(method: string, path: string, options?: RequestOptions): Promise<ApiResponse<T>>;
  get<T = unknown>(path: string, options?: Omit<RequestOptions, 'body' | 'rawBody'>): Promise<ApiResponse<T>>;
  post<T = unknown>(path: string, body?: unknown, options?: Omit<RequestOptions, 'body'>): Promise<ApiResponse<T>>;
  delete<T = unknown>(path: string, options?: Omit<RequestOptions, 'body' | 'rawBody'>): Promise<ApiResponse<T>>;
}

export interface RawRequest {
  method: string;
  /** Absolute URL; its path and query are sent exactly as given. */
  url: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** 127.0.0.x; default 127.0.0.1. */
  sourceAddress?: string;
}

/**
 * One request, headers as given (nothing added but Content-Length); the transport of `api`. Sent
 * once more when it went out on a kept-alive connection the server had just closed (Node's own
 * advice for that race: `reusedSocket` and ECONNRESET, no answer begun): the server's idle timeout
 * ran out as the request left, so it was never read. Seen twice in one day with the stack in the
 * test's process on a busy machine, as `read ECONNRESET` failing a test that had done nothing wrong.
 */
export async function sendFrom<T = unknown>(options: RawRequest): Promise<ApiResponse<T>> {
  try {
    return await sendOnce<T>(options);
  } catch (error) {
    if (!(error instanceof StaleConnectionError)) throw error;
    return sendOnce<T>(options);
  }
}

/** A request reset on a kept-alive connection before any answer: the server closed it idle. */
class StaleConnectionError extends Error {}

function sendOnce<T>(options: RawRequest): Promise<ApiResponse<T>> {
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
    req.on('error', (error: NodeJS.ErrnoException) => {
      reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleConnectionError(error.message, { cause: error }) : error);
    });
    req.end(options.body);
  });
}

export function api(baseUrl: string, key?: string, from: { sourceAddress?: string } = {}): ApiClient {
  const request = async <T>(method: string, path: string, options: RequestOptions = {}): Promise<ApiResponse<T>> => {
    const headers: Record<string, string> = {};
    if (key !== undefined) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array | undefined;
    if (options.rawBody !== undefined) {
      body = options.rawBody;
    } else if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] = 'application/json';
    }
    for (const [name, value] of Object.entries(options.headers ?? {})) headers[name.toLowerCase()] = value;
    return sendFrom<T>({
      method,
      url: `${baseUrl}${path}`,
      headers,
      ...(body === undefined ? {} : { body }),
      ...(from.sourceAddress === undefined ? {} : { sourceAddress: from.sourceAddress }),
    });
  };
  return clientOf(request);
}

/** The get/post/delete shorthands of an ApiClient, over its `request`. */
export function clientOf(request: ApiClient['request']): ApiClient {
  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    delete: (path, options) => request('DELETE', path, options),
  };
}

let nextHost = 2;

/** A loopback address no other test of this file uses: its own client-address bucket. */
export function freshSourceAddress(): string {
  const host = nextHost;
  nextHost += 1;
  return `127.0.${Math.floor(host / 250)}.${(host % 250) + 1}`;
}
