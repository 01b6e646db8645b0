/**
 * The SDK's retries (sdk/src/http.ts) against a real local HTTP server that answers from a script:
 * 429 with Retry-After then 200, 5xx until the attempts run out, a create still in flight, a lost
 * connection, a timeout, the Idempotency-Key of a post's PATCH, publish and retry, a preview, and
 * the webhook endpoint writes that take no key and so are sent once. What is asserted is what reached the server (how many requests, which
 * Idempotency-Key) and the delay the SDK chose (through `onRetry`), never how long anything took.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ApiError,
  AuthenticationError,
  ConnectionError,
  InvalidRequestError,
  RateLimitError,
  SocialPublishing,
  type RetryEvent,
  type SocialPublishingOptions,
} from '../../sdk/src/index.js';

interface Received {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}
type Answer = (response: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))));
});

/** A server that answers the n-th request with the n-th answer (the last one again after that). */
async function scripted(answers: Answer[]): Promise<{ baseUrl: string; received: Received[] }> {
  const received: Received[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ method: request.method ?? '', url: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8') });
      const answer = answers[Math.min(received.length, answers.length) - 1];
      answer?.(response);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { baseUrl: `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/v1`, received };
}

function json(status: number, body: unknown, headers: Record<string, string> = {}): Answer {
  return (response) => {
    response.writeHead(status, { 'content-type': 'application/json', 'apigw-requestid': `req-${status}`, ...headers });
    response.end(JSON.stringify(body));
  };
}
const apiError = (status: number, type: string, code: string, headers: Record<string, string> = {}, param: string | null = null) =>
  json(status, { error: { type, code, message: `${code} (test)`, param } }, headers);
const accountList = json(200, { object: 'list', accounts: [] });
const batch = { object: 'post_batch', campaignId: 'cmp_1', posts: [] };

function client(baseUrl: string, options: Partial<SocialPublishingOptions> = {}): { sdk: SocialPublishing; retries: RetryEvent[] } {
  const retries: RetryEvent[] = [];
  const sdk = new SocialPublishing({ baseUrl, apiKey: 'ak_test_secret', onRetry: (event) => retries.push(event), ...options });
  return { sdk, retries };
}

/** What the call rejects with (a PagedList is awaited like a promise). */
async function rejection(promise: PromiseLike<unknown>): Promise<unknown> {
  return Promise.resolve(promise).then(
    () => {
      throw new Error('resolved, but should have been rejected');
    },
    (error: unknown) => error,
  );
}

describe('retries', () => {
  it('a 429 with Retry-After is waited out for exactly that long, then the 200 is the answer', async () => {
    const server = await scripted([apiError(429, 'rate_limit_error', 'rate_limit_burst', { 'retry-after': '1' }), accountList]);
    const { sdk, retries } = client(server.baseUrl);
    expect(await sdk.accounts.list()).toEqual({ object: 'list', accounts: [] });
    expect(server.received.map((request) => `${request.method} ${request.url}`)).toEqual(['GET /api/v1/accounts', 'GET /api/v1/accounts']);
    expect(retries).toHaveLength(1);
    expect(retries[0]).toMatchObject({ method: 'GET', path: '/accounts', attempt: 2, delayMs: 1000 });
    expect(retries[0]?.error).toBeInstanceOf(RateLimitError);
  });

  it('a create that meets a 500 is sent again with the same Idempotency-Key and body', async () => {
    const server = await scripted([apiError(500, 'api_error', 'internal_error'), json(202, batch)]);
    const { sdk, retries } = client(server.baseUrl);
    expect(await sdk.posts.create({ accounts: ['acc_1'], text: 'Hello' })).toEqual(batch);
    const [first, second] = server.received;
    expect(server.received).toHaveLength(2);
    expect(first?.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
    expect(second?.headers['idempotency-key']).toBe(first?.headers['idempotency-key']);
    expect(second?.body).toBe(first?.body);
    expect(JSON.parse(first?.body ?? '')).toEqual({ accounts: ['acc_1'], text: 'Hello' });
    expect(first?.headers.authorization).toBe('Bearer ak_test_secret');
    // Without Retry-After: the jittered backoff's first step, between 250 and 500 ms.
    expect(retries[0]?.delayMs).toBeGreaterThanOrEqual(250);
    expect(retries[0]?.delayMs).toBeLessThanOrEqual(500);
    expect(retries[0]?.idempotencyKey).toBe(first?.headers['idempotency-key']);
  });

  it('a given Idempotency-Key is the one sent; each create without one gets its own', async () => {
    const server = await scripted([json(202, batch)]);
    const { sdk } = client(server.baseUrl);
    await sdk.posts.create({ accounts: ['acc_1'] }, { idempotencyKey: 'order-42' });
    await sdk.posts.create({ accounts: ['acc_1'] });
    await sdk.posts.create({ accounts: ['acc_1'] });
    const keys = server.received.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toBe('order-42');
    expect(new Set(keys).size).toBe(3);
  });

  it('a post\'s PATCH, publish and retry each carry an Idempotency-Key and are sent again with it after a 500', async () => {
    const changed = { object: 'post', id: 'post_1' };
    const server = await scripted([
      apiError(500, 'api_error', 'internal_error', { 'retry-after': '0' }),
      json(200, changed),
      apiError(500, 'api_error', 'internal_error', { 'retry-after': '0' }),
      json(200, changed),
      apiError(500, 'api_error', 'internal_error', { 'retry-after': '0' }),
      json(200, changed),
    ]);
    const { sdk, retries } = client(server.baseUrl);
    expect(await sdk.posts.update('post_1', { text: 'Changed' })).toEqual(changed);
    expect(await sdk.posts.publish('post_1')).toEqual(changed);
    expect(await sdk.posts.retry('post_1', { scheduledFor: '2030-01-01T00:00:00Z' }, { idempotencyKey: 'retry-42' })).toEqual(changed);
    expect(server.received.map((request) => `${request.method} ${request.url} ${request.body}`)).toEqual([
      'PATCH /api/v1/posts/post_1 {"text":"Changed"}',
      'PATCH /api/v1/posts/post_1 {"text":"Changed"}',
      'POST /api/v1/posts/post_1/publish ',
      'POST /api/v1/posts/post_1/publish ',
      'POST /api/v1/posts/post_1/retry {"scheduledFor":"2030-01-01T00:00:00Z"}',
      'POST /api/v1/posts/post_1/retry {"scheduledFor":"2030-01-01T00:00:00Z"}',
    ]);
    const keys = server.received.map((request) => request.headers['idempotency-key']);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys).toEqual([keys[0], keys[0], keys[2], keys[2], 'retry-42', 'retry-42']);
    expect(keys[0]).not.toBe(keys[2]);
    // A publish without parameters sends no body, so each attempt is the same request to the API.
    expect(server.received[2]?.headers['content-type']).toBeUndefined();
    expect(retries.map((event) => [event.method, event.idempotencyKey])).toEqual([
      ['PATCH', keys[0]],
      ['POST', keys[2]],
      ['POST', 'retry-42'],
    ]);
  });

  it('a preview is sent again after a 500 without a key (it writes nothing); a key given to it is refused unsent', async () => {
    const preview = { object: 'post_batch', campaignId: null, posts: [] };
    const server = await scripted([apiError(500, 'api_error', 'internal_error', { 'retry-after': '0' }), json(200, preview)]);
    const { sdk } = client(server.baseUrl);
    expect(await sdk.posts.preview({ accounts: ['acc_1'], text: 'Hello' })).toEqual(preview);
    expect(server.received.map((request) => [request.method, request.url, request.headers['idempotency-key']])).toEqual([
      ['POST', '/api/v1/posts/preview', undefined],
      ['POST', '/api/v1/posts/preview', undefined],
    ]);
    await expect(sdk.posts.preview({ accounts: ['acc_1'] }, { idempotencyKey: 'k' })).rejects.toThrow(/takes no Idempotency-Key/);
    expect(server.received).toHaveLength(2);
  });

  it('a webhook endpoint\'s create, rotation and test carry a key and are repeated with it after a 500; its update takes none and is sent once; its delete is repeated', async () => {
    const server = await scripted([apiError(500, 'api_error', 'internal_error', { 'retry-after': '0' })]);
    const { sdk, retries } = client(server.baseUrl, { maxRetries: 1 });
    const keyed = [
      () => sdk.webhookEndpoints.create({ url: 'https://example.com/hooks', enabledEvents: ['*'] }),
      () => sdk.webhookEndpoints.rotateSecret('we_1'),
      () => sdk.webhookEndpoints.test('we_1', { idempotencyKey: 'test-42' }),
    ];
    for (const call of keyed) expect(await rejection(call())).toMatchObject({ code: 'internal_error', status: 500 });
    const sent = server.received.map((request) => [`${request.method} ${request.url}`, request.headers['idempotency-key']]);
    expect(sent.map(([line]) => line)).toEqual([
      'POST /api/v1/webhook_endpoints',
      'POST /api/v1/webhook_endpoints',
      'POST /api/v1/webhook_endpoints/we_1/rotate_secret',
      'POST /api/v1/webhook_endpoints/we_1/rotate_secret',
      'POST /api/v1/webhook_endpoints/we_1/test',
      'POST /api/v1/webhook_endpoints/we_1/test',
    ]);
    // Each repeat carries its first attempt's key: the API answers it with the first answer.
    const keys = sent.map(([, key]) => key);
    expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[1]).toBe(keys[0]);
    expect(keys[2]).toMatch(/^[0-9a-f-]{36}$/);
    expect(keys[3]).toBe(keys[2]);
    expect(keys[2]).not.toBe(keys[0]);
    expect(keys.slice(4)).toEqual(['test-42', 'test-42']);
    expect(retries).toHaveLength(3);

    expect(await rejection(sdk.webhookEndpoints.update('we_1', { status: 'disabled' }))).toMatchObject({ code: 'internal_error' });
    expect(server.received.slice(6).map((request) => [request.method, request.headers['idempotency-key']])).toEqual([['PATCH', undefined]]);
    expect(await rejection(sdk.webhookEndpoints.delete('we_1'))).toMatchObject({ code: 'internal_error' });
    expect(server.received.slice(7).map((request) => request.method)).toEqual(['DELETE', 'DELETE']);
    // A key the API would not honour is refused before anything is sent, rather than trusted.
    await expect(sdk.webhookEndpoints.update('we_1', { status: 'disabled' }, { idempotencyKey: 'k' })).rejects.toThrow(TypeError);
    expect(server.received).toHaveLength(9);
  });

  it('5xx is retried maxRetries times, then the last error is thrown, typed, with its request id', async () => {
    const server = await scripted([apiError(503, 'api_error', 'internal_error', { 'retry-after': '0' })]);
    const { sdk, retries } = client(server.baseUrl, { maxRetries: 3 });
    const error = await rejection(sdk.posts.get('post_1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ type: 'api_error', code: 'internal_error', status: 503, requestId: 'req-503' });
    expect(server.received).toHaveLength(4);
    expect(retries.map((event) => event.attempt)).toEqual([2, 3, 4]);
  });

  it('a create still in flight (409 idempotency_in_flight) is asked again until its answer is there', async () => {
    const server = await scripted([apiError(409, 'invalid_request_error', 'idempotency_in_flight'), json(202, batch)]);
    const { sdk } = client(server.baseUrl);
    expect(await sdk.posts.create({ accounts: ['acc_1'] })).toEqual(batch);
    expect(server.received).toHaveLength(2);
  });

  it('a request the server refuses for its content (400, 401, 422) is not repeated', async () => {
    const server = await scripted([
      apiError(400, 'invalid_request_error', 'invalid_limit', {}, 'limit'),
      apiError(401, 'authentication_error', 'api_key_unknown'),
      apiError(422, 'invalid_request_error', 'idempotency_key_reused'),
    ]);
    const { sdk, retries } = client(server.baseUrl);
    const invalid = await rejection(sdk.posts.list({ limit: 100 }));
    expect(invalid).toBeInstanceOf(InvalidRequestError);
    expect(invalid).toMatchObject({ code: 'invalid_limit', param: 'limit', status: 400 });
    expect(await rejection(sdk.accounts.list())).toBeInstanceOf(AuthenticationError);
    expect(await rejection(sdk.posts.create({ accounts: ['acc_1'] }))).toMatchObject({ code: 'idempotency_key_reused', status: 422 });
    expect(server.received).toHaveLength(3);
    expect(retries).toEqual([]);
  });

  it('a Retry-After beyond the ceiling (the daily limit) is not waited for: RateLimitError says when to come back', async () => {
    const server = await scripted([apiError(429, 'rate_limit_error', 'rate_limit_daily', { 'retry-after': '3600' })]);
    const { sdk, retries } = client(server.baseUrl);
    const error = await rejection(sdk.accounts.list());
    expect(error).toBeInstanceOf(RateLimitError);
    expect(error).toMatchObject({ code: 'rate_limit_daily', retryAfterSeconds: 3600 });
    expect(server.received).toHaveLength(1);
    expect(retries).toEqual([]);
  });

  it('a timeout and a lost connection are ConnectionErrors, retried like a 5xx', async () => {
    const hang: Answer = () => undefined;
    const drop: Answer = (response) => response.socket?.destroy();
    const server = await scripted([hang, drop, accountList]);
    const { sdk, retries } = client(server.baseUrl, { timeoutMs: 300 });
    expect(await sdk.accounts.list()).toEqual({ object: 'list', accounts: [] });
    expect(server.received).toHaveLength(3);
    expect(retries.map((event) => [event.error.constructor, event.error.code])).toEqual([
      [ConnectionError, 'timeout'],
      [ConnectionError, 'connection_failed'],
    ]);
  });

  it('a body that is not the API error shape (a proxy page) is typed by its status', async () => {
    const server = await scripted([
      (response) => {
        response.writeHead(502, { 'content-type': 'text/html' });
        response.end('<html>Bad gateway</html>');
      },
    ]);
    const { sdk } = client(server.baseUrl, { maxRetries: 0 });
    const error = await rejection(sdk.accounts.list());
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ type: 'api_error', code: 'http_502', status: 502, raw: '<html>Bad gateway</html>' });
  });

  it('a 2xx body that is not JSON is an ApiError (code invalid_json), not a SyntaxError', async () => {
    const server = await scripted([
      (response) => {
        response.writeHead(200, { 'content-type': 'text/html' });
        response.end('<html>Welcome to the captive portal</html>');
      },
    ]);
    const { sdk } = client(server.baseUrl);
    const error = await rejection(sdk.posts.get('post_1'));
    expect(error).toBeInstanceOf(ApiError);
    expect(error).toMatchObject({ code: 'invalid_json', status: 200 });
    expect(server.received).toHaveLength(1);
  });

  it('an aborted signal ends the waiting and the retries at once, with its reason', async () => {
    const server = await scripted([apiError(503, 'api_error', 'internal_error', { 'retry-after': '30' })]);
    const controller = new AbortController();
    const { sdk } = client(server.baseUrl, { onRetry: () => controller.abort(new Error('stop')) });
    expect(await rejection(sdk.accounts.list({}, { signal: controller.signal }))).toEqual(new Error('stop'));
    expect(server.received).toHaveLength(1);
  });

  it('path parameters are encoded, and an empty one is refused before anything is sent', async () => {
    const server = await scripted([json(200, { object: 'post_deleted', id: 'a/b?c', softDeleted: false, platformDeletionQueuedFor: [] })]);
    const { sdk } = client(server.baseUrl);
    await sdk.posts.delete('a/b?c', { deleteFromPlatform: true });
    await sdk.posts.delete('a/b?c', { deleteFromPlatform: false });
    expect(server.received.map((request) => request.url)).toEqual(['/api/v1/posts/a%2Fb%3Fc?deleteFromPlatform=true', '/api/v1/posts/a%2Fb%3Fc']);
    await expect(sdk.posts.get('')).rejects.toThrow(TypeError);
    expect(server.received).toHaveLength(2);
  });
});

describe('waitForOutcome (scripted server)', () => {
  const post = (status: string, scheduledFor: Date) => ({
    object: 'post',
    id: 'post_1',
    workspaceId: 'ws_1',
    accountId: 'acc_1',
    platform: 'x',
    campaignId: 'cmp_1',
    status,
    text: 'Hello',
    mediaUrls: [],
    scheduledFor: scheduledFor.toISOString(),
    publishedAt: null,
    publishedUrl: null,
    platformPostId: null,
    error: null,
    createdAt: scheduledFor.toISOString(),
    updatedAt: scheduledFor.toISOString(),
  });

  it('leaves a post due later alone until its time (or the deadline) instead of reading it every interval', async () => {
    const server = await scripted([json(200, post('scheduled', new Date(Date.now() + 3_600_000)))]);
    const { sdk } = client(server.baseUrl);
    const error = await rejection(sdk.posts.waitForOutcome('post_1', { timeoutMs: 600, intervalMs: 100 }));
    expect(error).toMatchObject({ code: 'wait_timeout', post: { status: 'scheduled' } });
    // One read at the start and one at the deadline, not one every 100 ms.
    expect(server.received.length).toBeLessThanOrEqual(2);
  });

  it('reads a due post every interval until it is published, and stops when its signal aborts', async () => {
    const due = new Date(Date.now() - 1000);
    const server = await scripted([json(200, post('scheduled', due)), json(200, post('scheduled', due)), json(200, post('published', due))]);
    const { sdk } = client(server.baseUrl);
    expect(await sdk.posts.waitForOutcome('post_1', { intervalMs: 100 })).toMatchObject({ status: 'published' });
    expect(server.received).toHaveLength(3);

    const stuck = await scripted([json(200, post('scheduled', due))]);
    const controller = new AbortController();
    const waiting = rejection(client(stuck.baseUrl).sdk.posts.waitForOutcome('post_1', { intervalMs: 100, signal: controller.signal }));
    controller.abort(new Error('no longer needed'));
    expect(await waiting).toEqual(new Error('no longer needed'));
  });
});
