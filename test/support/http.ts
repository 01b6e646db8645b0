/**
 * A tiny HTTP client for the API under test: `api(baseUrl, key)` sends requests with the bearer
 * key (none when `key` is undefined) and returns status, lower-cased headers and the body (parsed
 * when it is JSON, the text otherwise). Paths are relative to the API base URL (`/posts`).
 */
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

export function api(baseUrl: string, key?: string): ApiClient {
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
    const response = await fetch(`${baseUrl}${path}`, { method, headers, ...(body === undefined ? {} : { body }) });
    const text = await response.text();
    const responseHeaders: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      responseHeaders[name] = value;
    });
    let parsed: unknown = text;
    if ((responseHeaders['content-type'] ?? '').includes('json') && text !== '') {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    return { status: response.status, headers: responseHeaders, body: parsed as T, text };
  };
  return {
    request,
    get: (path, options) => request('GET', path, options),
    post: (path, body, options) => request('POST', path, { ...options, body }),
    delete: (path, options) => request('DELETE', path, options),
  };
}
