/**
 * API Gateway HTTP API (payload format 2.0), as far as the service can observe it: how a request
 * becomes the event a route's Lambda receives, how a route is chosen, and how the Lambda's result
 * becomes the HTTP response. Pure functions, so they are unit-tested on their own; the server in
 * http-server.ts only moves bytes.
 *
 * What API Gateway does and this copies (and nothing more):
 * - header names lower-cased; a repeated header's values joined with commas; Cookie headers moved
 *   to `cookies`; x-forwarded-for/-port/-proto and x-amzn-trace-id added;
 * - a repeated query parameter's values joined with commas; `queryStringParameters` and
 *   `pathParameters` absent when empty; values percent-decoded; `rawQueryString` as sent;
 * - `rawPath` percent-decoded (HTTP APIs deliver the decoded path);
 * - a body that is not text (by content type) is base64-encoded with `isBase64Encoded: true`;
 * - routes match on method + path template, `{name}` matching one non-empty segment; anything
 *   else goes to the `$default` route;
 * - a result without `statusCode` is a 200 JSON body; a malformed result or a thrown error is
 *   API Gateway's own 500 `{"message":"Internal Server Error"}`.
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { LOCAL_ACCOUNT_ID } from './local-aws.js';

/** API Gateway's ceiling for an HTTP API request body. */
export const MAX_REQUEST_BODY_BYTES = 10 * 1024 * 1024;

export interface RouteDefinition {
  method: string;
  /** Full path template, e.g. `/api/v1/posts/{id}`. */
  path: string;
}

type Segment = { literal: string } | { param: string };

export interface CompiledRoute<R extends RouteDefinition = RouteDefinition> {
  route: R;
  routeKey: string;
  segments: Segment[];
}

export interface RouteMatch<R extends RouteDefinition = RouteDefinition> {
  route: R;
  routeKey: string;
  pathParameters: Record<string, string>;
}

export function compileRoutes<R extends RouteDefinition>(routes: readonly R[]): CompiledRoute<R>[] {
  return routes.map((route) => ({
    route,
    routeKey: `${route.method} ${route.path}`,
    segments: route.path
      .split('/')
      .slice(1)
      .map((part): Segment => {
        const param = /^\{([^}+]+)\}$/.exec(part)?.[1];
        return param === undefined ? { literal: part } : { param };
      }),
  }));
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** `pathname` as received (still percent-encoded). Literal segments compare decoded. */
export function matchRoute<R extends RouteDefinition>(
  routes: readonly CompiledRoute<R>[],
  method: string,
  pathname: string,
): RouteMatch<R> | null {
  const parts = pathname.split('/').slice(1);
  for (const candidate of routes) {
    if (candidate.route.method !== method || candidate.segments.length !== parts.length) continue;
    const pathParameters: Record<string, string> = {};
    let matches = true;
    for (const [index, segment] of candidate.segments.entries()) {
      const part = parts[index] ?? '';
      if ('param' in segment) {
        if (part === '') {
          matches = false;
          break;
        }
        pathParameters[segment.param] = safeDecode(part);
      } else if (safeDecode(part) !== segment.literal) {
        matches = false;
        break;
      }
    }
    if (matches) return { route: candidate.route, routeKey: candidate.routeKey, pathParameters };
  }
  return null;
}

export interface IncomingApiRequest {
  method: string;
  /** Request target as received: path plus optional `?query`. */
  url: string;
  /** Node's `rawHeaders`: name, value, name, value, ... in the order received. */
  rawHeaders: readonly string[];
  body: Buffer | null;
  sourceIp: string;
  /** Port the client connected to (x-forwarded-port). */
  localPort: number;
  httpVersion: string;
  requestId: string;
  now: Date;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** API Gateway's `requestContext.time`: `21/Nov/2026:09:30:00 +0000`. */
export function requestTime(now: Date): string {
  const pad = (value: number): string => String(value).padStart(2, '0');
  return `${pad(now.getUTCDate())}/${MONTHS[now.getUTCMonth()]}/${now.getUTCFullYear()}:${pad(now.getUTCHours())}:${pad(now.getUTCMinutes())}:${pad(now.getUTCSeconds())} +0000`;
}

/** Content types API Gateway passes as text; every other body arrives base64-encoded. */
export function isTextContentType(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
  return (
    type.startsWith('text/') ||
    type === 'application/json' ||
    type.endsWith('+json') ||
    type === 'application/xml' ||
    type.endsWith('+xml') ||
    type === 'application/javascript' ||
    type === 'application/x-www-form-urlencoded'
  );
}

function traceId(now: Date, requestId: string): string {
  const epochHex = Math.floor(now.getTime() / 1000).toString(16).padStart(8, '0');
  return `Root=1-${epochHex}-${requestId.replaceAll('-', '').slice(0, 24)}`;
}

export function buildHttpApiEvent(request: IncomingApiRequest, match: RouteMatch | null): APIGatewayProxyEventV2 {
  const queryIndex = request.url.indexOf('?');
  const rawPathEncoded = queryIndex === -1 ? request.url : request.url.slice(0, queryIndex);
  const rawQueryString = queryIndex === -1 ? '' : request.url.slice(queryIndex + 1);
  const rawPath = safeDecode(rawPathEncoded);

  const headers: Record<string, string> = {};
  const cookies: string[] = [];
  for (let index = 0; index + 1 < request.rawHeaders.length; index += 2) {
    const name = (request.rawHeaders[index] ?? '').toLowerCase();
    const value = request.rawHeaders[index + 1] ?? '';
    if (name === 'cookie') {
      cookies.push(...value.split(';').map((cookie) => cookie.trim()).filter((cookie) => cookie !== ''));
      continue;
    }
    headers[name] = headers[name] === undefined ? value : `${headers[name]},${value}`;
  }
  headers['x-forwarded-for'] = headers['x-forwarded-for'] === undefined ? request.sourceIp : `${headers['x-forwarded-for']}, ${request.sourceIp}`;
  headers['x-forwarded-port'] = String(request.localPort);
  headers['x-forwarded-proto'] = 'http';
  headers['x-amzn-trace-id'] ??= traceId(request.now, request.requestId);

  const query: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(rawQueryString)) {
    query[key] = query[key] === undefined ? value : `${query[key]},${value}`;
  }

  const host = headers.host ?? 'localhost';
  const domainName = host.replace(/:\d+$/, '');
  const routeKey = match?.routeKey ?? '$default';
  const event: APIGatewayProxyEventV2 = {
    version: '2.0',
    routeKey,
    rawPath,
    rawQueryString,
    headers,
    requestContext: {
      accountId: LOCAL_ACCOUNT_ID,
      apiId: 'local',
      domainName,
      domainPrefix: domainName.split('.')[0] ?? domainName,
      http: {
        method: request.method,
        path: rawPath,
        protocol: `HTTP/${request.httpVersion}`,
        sourceIp: request.sourceIp,
        userAgent: headers['user-agent'] ?? '',
      },
      requestId: request.requestId,
      routeKey,
      stage: '$default',
      time: requestTime(request.now),
      timeEpoch: request.now.getTime(),
    },
    isBase64Encoded: false,
  };
  if (cookies.length > 0) event.cookies = cookies;
  if (Object.keys(query).length > 0) event.queryStringParameters = query;
  if (match && Object.keys(match.pathParameters).length > 0) event.pathParameters = match.pathParameters;
  if (request.body !== null && request.body.length > 0) {
    if (isTextContentType(headers['content-type'])) {
      event.body = request.body.toString('utf8');
    } else {
      event.body = request.body.toString('base64');
      event.isBase64Encoded = true;
    }
  }
  return event;
}

export class InvalidLambdaResponseError extends Error {
  readonly code = 'invalid_lambda_response';
  constructor(message: string) {
    super(message);
    this.name = 'InvalidLambdaResponseError';
  }
}

export interface HttpResponseParts {
  statusCode: number;
  headers: Record<string, string>;
  /** Each becomes its own Set-Cookie header. */
  cookies: string[];
  body: Buffer;
}

/** What API Gateway answers itself (no route, errors, limits): `{"message": ...}` JSON. */
export function gatewayResponse(statusCode: number, message: string): HttpResponseParts {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    cookies: [],
    body: Buffer.from(JSON.stringify({ message })),
  };
}

export function toHttpResponse(result: unknown): HttpResponseParts {
  const structured = typeof result === 'object' && result !== null && 'statusCode' in result;
  if (!structured) {
    // Payload 2.0: a result without statusCode is the body of a 200 JSON response.
    const body = typeof result === 'string' ? result : JSON.stringify(result ?? null);
    return { statusCode: 200, headers: { 'content-type': 'application/json' }, cookies: [], body: Buffer.from(body) };
  }
  const { statusCode, headers, body, isBase64Encoded, cookies } = result as Record<string, unknown>;
  if (typeof statusCode !== 'number' || !Number.isInteger(statusCode) || statusCode < 100 || statusCode > 599) {
    throw new InvalidLambdaResponseError(`statusCode must be an HTTP status, got ${String(statusCode)}`);
  }
  const outHeaders: Record<string, string> = {};
  if (headers !== undefined && headers !== null) {
    if (typeof headers !== 'object') throw new InvalidLambdaResponseError('headers must be an object');
    for (const [name, value] of Object.entries(headers)) {
      if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
        throw new InvalidLambdaResponseError(`header ${name} must be a string, number or boolean`);
      }
      outHeaders[name] = String(value);
    }
  }
  if (body !== undefined && body !== null && typeof body !== 'string') throw new InvalidLambdaResponseError('body must be a string');
  if (cookies !== undefined && (!Array.isArray(cookies) || cookies.some((cookie) => typeof cookie !== 'string'))) {
    throw new InvalidLambdaResponseError('cookies must be an array of strings');
  }
  const text = typeof body === 'string' ? body : '';
  return {
    statusCode,
    headers: outHeaders,
    cookies: (cookies as string[] | undefined) ?? [],
    body: isBase64Encoded === true ? Buffer.from(text, 'base64') : Buffer.from(text, 'utf8'),
  };
}
