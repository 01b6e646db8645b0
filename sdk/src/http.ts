/**
 * The request core: one typed `request(method, path, input)` for every operation of openapi.yaml,
 * so an operation the API adds is a few typed lines in a resource (client.ts). It sends the key,
 * an `Idempotency-Key` on every operation that takes one (the same one on each of its own
 * retries), and retries 429, 5xx, a request still in flight and a lost connection with jittered
 * backoff, honouring `Retry-After`, but only when repeating the request cannot do anything twice.
 *
 * Only fetch, AbortController, setTimeout and crypto.randomUUID: it runs on Node.js 20+ and on
 * edge runtimes alike.
 */
import { ApiError, ConnectionError, errorFromResponse, type SocialPublishingError } from './errors.js';
import type { paths } from './generated/openapi.js';

export type HttpMethod = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** The methods openapi.yaml defines on a path. */
export type MethodOf<P extends keyof paths> = {
  [M in HttpMethod]: [paths[P][M]] extends [undefined] ? never : M;
}[HttpMethod];

/** The generated description of one operation (its parameters, body and responses). */
export type Operation<P extends keyof paths, M extends MethodOf<P>> = NonNullable<paths[P][M]>;

type ParametersOf<O> = O extends { parameters: infer X } ? X : never;
/** The path parameters of an operation (`{ id: string }`). */
export type PathParams<O> = ParametersOf<O> extends { path: infer X } ? X : never;
/** The query parameters of an operation. */
export type QueryParams<O> = NonNullable<ParametersOf<O> extends { query?: infer X } ? X : never>;
/** The JSON request body of an operation. */
export type RequestBody<O> = O extends { requestBody?: { content: { 'application/json': infer B } } } ? B : never;
type JsonContent<R> = R extends { content: { 'application/json': infer B } } ? B : undefined;
/** The JSON body of an operation's success response (2xx). */
export type SuccessBody<O> = O extends { responses: infer R }
  ? { [S in keyof R]: S extends 200 | 201 | 202 | 204 ? JsonContent<R[S]> : never }[keyof R]
  : never;

/** Whether openapi.yaml declares the `Idempotency-Key` header on an operation (the API then remembers its answer per key). */
export type TakesIdempotencyKey<O> = ParametersOf<O> extends { header?: infer H }
  ? // An operation without headers has `header?: undefined`, whose keyof would be every key.
    [NonNullable<H>] extends [never]
    ? false
    : 'Idempotency-Key' extends keyof NonNullable<H>
      ? true
      : false
  : false;

/**
 * What makes repeating a write safe, said by the resource for its operation (GET and DELETE are
 * always repeated). An operation that takes an Idempotency-Key must say so (the type requires it),
 * and only such an operation can: the key is sent, the same on each retry, and the API answers a
 * repeat with the first answer. `'writes-nothing'` is for an operation that changes nothing (a
 * preview). Any other write is sent once: the API would do it twice (a PATCH without a key could
 * apply after a newer change; a create without one would create two).
 */
export type RepeatInput<O> = TakesIdempotencyKey<O> extends true ? { repeat: 'idempotency-key' } : { repeat?: 'writes-nothing' };

export type RequestInput<O> = {
  path?: PathParams<O>;
  query?: QueryParams<O>;
  body?: RequestBody<O>;
} & RepeatInput<O>;

/** Per-call settings; each overrides the client's. */
export interface RequestOptions {
  /**
   * The `Idempotency-Key` of an operation that takes one (a create, a post's change, publish or
   * retry); one is generated when absent. Reuse it to repeat the request safely yourself. Given to
   * an operation that takes none, the call throws a TypeError: the API would not honour it.
   */
  idempotencyKey?: string;
  /** Retries after the first attempt (0 turns them off). */
  maxRetries?: number;
  /** Time allowed for one attempt, response body included. */
  timeoutMs?: number;
  /** Aborts the request and its retries; its reason is what the call rejects with. */
  signal?: AbortSignal;
}

/** What `onRetry` is told before the SDK waits and tries again. */
export interface RetryEvent {
  method: string;
  path: string;
  /** The attempt about to be made: 2 for the first retry. */
  attempt: number;
  /** How long the SDK waits first: `Retry-After` when the response had one, else jittered backoff. */
  delayMs: number;
  /** What went wrong with the attempt before. */
  error: SocialPublishingError;
  /** The `Idempotency-Key` sent again, for an operation that takes one. */
  idempotencyKey: string | undefined;
}

export interface HttpSettings {
  baseUrl: string;
  apiKey: string;
  maxRetries: number;
  timeoutMs: number;
  /** A `Retry-After` longer than this is not waited for: the error is thrown with `retryAfterSeconds`. */
  maxRetryAfterMs: number;
  fetch: typeof fetch;
  onRetry: ((event: RetryEvent) => void) | undefined;
}

/** Backoff without `Retry-After`: 0.5 s doubling to at most 8 s, each drawn from its upper half. */
const BASE_DELAY_MS = 500;
const MAX_DELAY_MS = 8_000;

export class HttpClient {
  constructor(private readonly settings: HttpSettings) {}

  async request<P extends keyof paths, M extends MethodOf<P>>(
    method: M,
    path: P,
    input: RequestInput<Operation<P, M>>,
    options: RequestOptions = {},
  ): Promise<SuccessBody<Operation<P, M>>> {
    const repeat = (input as { repeat?: 'idempotency-key' | 'writes-nothing' }).repeat;
    if (options.idempotencyKey !== undefined && repeat !== 'idempotency-key') {
      throw new TypeError(`${method.toUpperCase()} ${path} takes no Idempotency-Key: the API would not honour it, so it is not sent.`);
    }
    const url = this.url(path, input.path as Record<string, string> | undefined, input.query as Record<string, unknown> | undefined);
    const headers: Record<string, string> = { authorization: `Bearer ${this.settings.apiKey}`, accept: 'application/json' };
    let body: string | undefined;
    if (input.body !== undefined) {
      body = JSON.stringify(input.body);
      headers['content-type'] = 'application/json';
    }
    // Every operation that takes a key gets one (a create, PATCH, publish and retry of a post: the
    // API remembers their answer per key, lib/use-cases/idempotent-request.ts), made once here so
    // each retry repeats it and the server answers a repeat with the first response instead of
    // doing the work again. Not every POST takes one (a webhook endpoint's create does not), so it
    // is the operation's, not the method's.
    const idempotencyKey = repeat === 'idempotency-key' ? (options.idempotencyKey ?? crypto.randomUUID()) : undefined;
    if (idempotencyKey !== undefined) headers['idempotency-key'] = idempotencyKey;
    // GET and DELETE change nothing more when repeated; a write only with its key, or when it
    // writes nothing. Any other write (a PATCH or POST the API keeps no key for) is sent once.
    const repeatable = method === 'get' || method === 'delete' || idempotencyKey !== undefined || repeat === 'writes-nothing';
    const maxRetries = repeatable ? Math.max(0, options.maxRetries ?? this.settings.maxRetries) : 0;
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;

    return this.retrying<SuccessBody<Operation<P, M>>>(method.toUpperCase(), path, maxRetries, idempotencyKey, options.signal, async () => {
      const answer = await this.attempt(url, { method: method.toUpperCase(), headers, body }, timeoutMs, options.signal);
      return answer.status >= 200 && answer.status < 300 ? { ok: successBody(answer) as SuccessBody<Operation<P, M>> } : { failed: answer };
    });
  }

  /**
   * A PUT of bytes to a presigned storage URL (not the API: no key is sent), with exactly the
   * headers it was signed with. Repeated as the API's idempotent requests are: the same bytes to
   * the same key again change nothing.
   */
  async putBytes(url: string, headers: Record<string, string>, body: Uint8Array | Blob, options: Omit<RequestOptions, 'idempotencyKey'> = {}): Promise<void> {
    const maxRetries = Math.max(0, options.maxRetries ?? this.settings.maxRetries);
    const timeoutMs = options.timeoutMs ?? this.settings.timeoutMs;
    await this.retrying<undefined>('PUT', new URL(url).pathname, maxRetries, undefined, options.signal, async () => {
      const answer = await this.attempt(url, { method: 'PUT', headers, body }, timeoutMs, options.signal);
      return answer.status >= 200 && answer.status < 300 ? { ok: undefined } : { failed: answer };
    });
  }

  /** The one retry loop: an attempt's failure that a repeat can fix is repeated after its delay, at most `maxRetries` times. */
  private async retrying<T>(
    method: string,
    path: string,
    maxRetries: number,
    idempotencyKey: string | undefined,
    signal: AbortSignal | undefined,
    once: () => Promise<{ ok: T } | { failed: { status: number; headers: Headers; text: string } }>,
  ): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      let error: SocialPublishingError;
      let retryAfterMs: number | null | undefined;
      try {
        const outcome = await once();
        if ('ok' in outcome) return outcome.ok;
        error = errorFromResponse(outcome.failed.status, outcome.failed.headers, outcome.failed.text);
        retryAfterMs = retryDelayFor(error, outcome.failed.headers);
      } catch (thrown) {
        if (signal?.aborted) throw signal.reason;
        if (!(thrown instanceof ConnectionError)) throw thrown;
        error = thrown;
        retryAfterMs = undefined;
      }
      // null: not a failure that a repeat can fix (a 400, or a Retry-After past the ceiling).
      if (retryAfterMs === null || attempt > maxRetries) throw error;
      const delayMs = retryAfterMs ?? backoff(attempt);
      if (delayMs > this.settings.maxRetryAfterMs) throw error;
      this.settings.onRetry?.({ method, path, attempt: attempt + 1, delayMs, error, idempotencyKey });
      await sleep(delayMs, signal);
    }
  }

  private url(template: string, pathParams: Record<string, string> | undefined, query: Record<string, unknown> | undefined): string {
    const path = template.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = pathParams?.[name];
      if (typeof value !== 'string' || value === '') throw new TypeError(`The path parameter "${name}" must be a non-empty string.`);
      return encodeURIComponent(value);
    });
    const search = new URLSearchParams();
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value === undefined || value === null) continue;
      search.append(name, String(value));
    }
    const queryString = search.toString();
    return `${this.settings.baseUrl}${path}${queryString === '' ? '' : `?${queryString}`}`;
  }

  /** One attempt, its body read whole within the time allowed; a failure to connect is a ConnectionError. */
  private async attempt(
    url: string,
    init: { method: string; headers: Record<string, string>; body: string | Uint8Array | Blob | undefined },
    timeoutMs: number,
    signal: AbortSignal | undefined,
  ): Promise<{ status: number; headers: Headers; text: string }> {
    const controller = new AbortController();
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, timeoutMs);
    const onAbort = () => controller.abort(signal?.reason);
    if (signal?.aborted) onAbort();
    else signal?.addEventListener('abort', onAbort, { once: true });
    try {
      // Bytes go as a Blob (a BodyInit in every runtime's types, a Uint8Array not in all).
      const body = init.body instanceof Uint8Array ? new Blob([init.body as Uint8Array<ArrayBuffer>]) : init.body;
      const response = await this.settings.fetch(url, { method: init.method, headers: init.headers, body, signal: controller.signal });
      return { status: response.status, headers: response.headers, text: await response.text() };
    } catch (cause) {
      if (signal?.aborted) throw signal.reason;
      throw new ConnectionError({
        type: 'connection_error',
        code: timedOut ? 'timeout' : 'connection_failed',
        message: timedOut ? `No answer from ${init.method} ${url} within ${timeoutMs} ms.` : `Could not reach ${init.method} ${url}.`,
        cause,
      });
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    }
  }
}

/** A 2xx body; one that is not JSON (a proxy's page) is an ApiError, not a SyntaxError from deep inside. */
function successBody(answer: { status: number; headers: Headers; text: string }): unknown {
  if (answer.text === '') return undefined;
  try {
    return JSON.parse(answer.text);
  } catch {
    throw new ApiError({ type: 'api_error', code: 'invalid_json', message: `The API answered ${answer.status} with a body that is not JSON.`, status: answer.status, headers: answer.headers, raw: answer.text });
  }
}

/**
 * How long to wait before repeating after this error: the response's `Retry-After` in ms,
 * undefined for the backoff, or null when a repeat cannot help.
 */
function retryDelayFor(error: SocialPublishingError, headers: Headers): number | null | undefined {
  const status = error.status ?? 0;
  // The first request with this key is still running: once it ends a repeat gets its response.
  const inFlight = status === 409 && error.code === 'idempotency_in_flight';
  if (!(status === 429 || status >= 500 || inFlight)) return null;
  return retryAfterMs(headers.get('retry-after'));
}

/** `Retry-After` as seconds or as an HTTP date (RFC 9110 allows both). */
function retryAfterMs(header: string | null): number | undefined {
  if (header === null) return undefined;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

function backoff(attempt: number): number {
  const ceiling = Math.min(MAX_DELAY_MS, BASE_DELAY_MS * 2 ** (attempt - 1));
  // Jitter, so many clients refused at the same moment do not all come back at the same moment.
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) {
      reject(signal.reason);
      return;
    }
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
