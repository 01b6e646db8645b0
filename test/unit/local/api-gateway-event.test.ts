/**
 * The local API Gateway's request → event and result → response rules (local/api-gateway-event.ts),
 * checked against what API Gateway HTTP APIs (payload format 2.0) do.
 */
import { describe, expect, it } from 'vitest';
import {
  buildHttpApiEvent,
  compileRoutes,
  InvalidLambdaResponseError,
  isTextContentType,
  matchRoute,
  requestTime,
  toHttpResponse,
  type IncomingApiRequest,
} from '../../../local/api-gateway-event.js';

const routes = compileRoutes([
  { method: 'GET', path: '/api/v1/posts' },
  { method: 'POST', path: '/api/v1/posts' },
  { method: 'GET', path: '/api/v1/posts/{id}' },
  { method: 'DELETE', path: '/api/v1/posts/{id}' },
]);

const NOW = new Date('2026-11-21T09:05:03.250Z');

function request(overrides: Partial<IncomingApiRequest> = {}): IncomingApiRequest {
  return {
    method: 'GET',
    url: '/api/v1/posts',
    rawHeaders: ['Host', '127.0.0.1:3000', 'User-Agent', 'test-agent/1.0'],
    body: null,
    sourceIp: '127.0.0.1',
    localPort: 3000,
    httpVersion: '1.1',
    requestId: '6f0c1f7e-2b1e-4a61-9c55-0d5d3b7a9e10',
    now: NOW,
    ...overrides,
  };
}

describe('route matching', () => {
  it('matches method and template, decoding path parameters', () => {
    expect(matchRoute(routes, 'GET', '/api/v1/posts/post_a%20b')).toEqual({
      route: { method: 'GET', path: '/api/v1/posts/{id}' },
      routeKey: 'GET /api/v1/posts/{id}',
      pathParameters: { id: 'post_a b' },
    });
    expect(matchRoute(routes, 'DELETE', '/api/v1/posts/p1')?.routeKey).toBe('DELETE /api/v1/posts/{id}');
    expect(matchRoute(routes, 'POST', '/api/v1/posts')?.routeKey).toBe('POST /api/v1/posts');
  });

  it('leaves other methods, empty parameters, extra segments and trailing slashes to $default', () => {
    expect(matchRoute(routes, 'PUT', '/api/v1/posts/p1')).toBeNull();
    expect(matchRoute(routes, 'GET', '/api/v1/posts/')).toBeNull();
    expect(matchRoute(routes, 'GET', '/api/v1/posts/p1/extra')).toBeNull();
    expect(matchRoute(routes, 'GET', '/api/v1/posts/p1/')).toBeNull();
    expect(matchRoute(routes, 'GET', '/api/v2/posts')).toBeNull();
  });
});

describe('payload 2.0 event', () => {
  it('carries the route, raw and decoded path, query and request context', () => {
    const url = '/api/v1/posts/post%201?status=scheduled&limit=5&tag=a&tag=b%2Cc&q=caf%C3%A9&empty=';
    const event = buildHttpApiEvent(request({ url }), matchRoute(routes, 'GET', url.split('?')[0] ?? ''));
    expect(event).toMatchObject({
      version: '2.0',
      routeKey: 'GET /api/v1/posts/{id}',
      rawPath: '/api/v1/posts/post 1',
      rawQueryString: 'status=scheduled&limit=5&tag=a&tag=b%2Cc&q=caf%C3%A9&empty=',
      // API Gateway joins repeated parameters with a comma (so an encoded comma becomes ambiguous).
      queryStringParameters: { status: 'scheduled', limit: '5', tag: 'a,b,c', q: 'café', empty: '' },
      pathParameters: { id: 'post 1' },
      isBase64Encoded: false,
      requestContext: {
        accountId: '000000000000',
        apiId: 'local',
        domainName: '127.0.0.1',
        http: { method: 'GET', path: '/api/v1/posts/post 1', protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'test-agent/1.0' },
        requestId: '6f0c1f7e-2b1e-4a61-9c55-0d5d3b7a9e10',
        routeKey: 'GET /api/v1/posts/{id}',
        stage: '$default',
        time: '21/Nov/2026:09:05:03 +0000',
        timeEpoch: NOW.getTime(),
      },
    });
    expect(event.body).toBeUndefined();
    expect(event.cookies).toBeUndefined();
  });

  it('omits queryStringParameters and pathParameters when there are none; $default has no route', () => {
    const event = buildHttpApiEvent(request({ url: '/nowhere' }), null);
    expect(event.routeKey).toBe('$default');
    expect(event.requestContext.routeKey).toBe('$default');
    expect(event.rawQueryString).toBe('');
    expect('queryStringParameters' in event).toBe(false);
    expect('pathParameters' in event).toBe(false);
  });

  it('lower-cases headers, joins repeated ones with commas and moves cookies out', () => {
    const event = buildHttpApiEvent(
      request({
        rawHeaders: [
          'Host', '127.0.0.1:3000',
          'X-Custom', 'one',
          'x-custom', 'two',
          'Cookie', 'a=1; b=2',
          'Cookie', 'c=3',
          'Idempotency-Key', 'k-1',
        ],
      }),
      null,
    );
    expect(event.headers).toMatchObject({ host: '127.0.0.1:3000', 'x-custom': 'one,two', 'idempotency-key': 'k-1' });
    expect(event.headers.cookie).toBeUndefined();
    expect(event.cookies).toEqual(['a=1', 'b=2', 'c=3']);
    // What API Gateway adds in front of the integration.
    expect(event.headers).toMatchObject({ 'x-forwarded-for': '127.0.0.1', 'x-forwarded-port': '3000', 'x-forwarded-proto': 'http' });
    expect(event.headers['x-amzn-trace-id']).toMatch(/^Root=1-[0-9a-f]{8}-[0-9a-f]{24}$/);
  });

  it('passes JSON and text bodies as text and other bodies base64-encoded', () => {
    const json = Buffer.from('{"text":"héllo"}');
    const asJson = buildHttpApiEvent(request({ method: 'POST', body: json, rawHeaders: ['Content-Type', 'application/json; charset=utf-8'] }), null);
    expect(asJson).toMatchObject({ body: '{"text":"héllo"}', isBase64Encoded: false });

    const binary = Buffer.from([0, 1, 2, 255]);
    const asBinary = buildHttpApiEvent(request({ method: 'POST', body: binary, rawHeaders: ['Content-Type', 'image/png'] }), null);
    expect(asBinary).toMatchObject({ body: binary.toString('base64'), isBase64Encoded: true });

    const untyped = buildHttpApiEvent(request({ method: 'POST', body: json, rawHeaders: [] }), null);
    expect(untyped).toMatchObject({ body: json.toString('base64'), isBase64Encoded: true });

    const empty = buildHttpApiEvent(request({ method: 'POST', body: Buffer.alloc(0), rawHeaders: ['Content-Type', 'application/json'] }), null);
    expect(empty.body).toBeUndefined();
  });

  it('knows the text content types', () => {
    for (const type of ['application/json', 'text/plain; charset=utf-8', 'application/problem+json', 'application/xml', 'application/x-www-form-urlencoded']) {
      expect(isTextContentType(type), type).toBe(true);
    }
    for (const type of [undefined, 'application/octet-stream', 'image/jpeg', 'multipart/form-data; boundary=x']) {
      expect(isTextContentType(type), String(type)).toBe(false);
    }
  });

  it('formats requestContext.time like API Gateway', () => {
    expect(requestTime(new Date('2027-01-02T03:04:05.999Z'))).toBe('02/Jan/2027:03:04:05 +0000');
  });
});

describe('Lambda result → HTTP response', () => {
  it('uses a structured result as given', () => {
    const response = toHttpResponse({
      statusCode: 201,
      headers: { 'Content-Type': 'application/json', 'X-RateLimit-Remaining': 119, 'X-Flag': true },
      cookies: ['a=1; HttpOnly', 'b=2'],
      body: '{"ok":true}',
    });
    expect(response.statusCode).toBe(201);
    expect(response.headers).toEqual({ 'Content-Type': 'application/json', 'X-RateLimit-Remaining': '119', 'X-Flag': 'true' });
    expect(response.cookies).toEqual(['a=1; HttpOnly', 'b=2']);
    expect(response.body.toString()).toBe('{"ok":true}');
  });

  it('decodes a base64 body', () => {
    const bytes = Buffer.from([137, 80, 78, 71]);
    const response = toHttpResponse({ statusCode: 200, body: bytes.toString('base64'), isBase64Encoded: true });
    expect(Buffer.compare(response.body, bytes)).toBe(0);
  });

  it('turns a result without statusCode into a 200 JSON body', () => {
    const response = toHttpResponse({ hello: 'world' });
    expect(response).toMatchObject({ statusCode: 200, headers: { 'content-type': 'application/json' } });
    expect(response.body.toString()).toBe('{"hello":"world"}');
  });

  it('rejects malformed results (API Gateway answers 500 for them)', () => {
    expect(() => toHttpResponse({ statusCode: '200' })).toThrow(InvalidLambdaResponseError);
    expect(() => toHttpResponse({ statusCode: 200, body: { not: 'a string' } })).toThrow(InvalidLambdaResponseError);
    expect(() => toHttpResponse({ statusCode: 200, headers: { x: { nested: true } } })).toThrow(InvalidLambdaResponseError);
    expect(() => toHttpResponse({ statusCode: 200, cookies: 'a=1' })).toThrow(InvalidLambdaResponseError);
  });
});
