/**
 * The HTTP side of the authorization server's JSON endpoints (metadata, registration, token): the
 * request body as a form or JSON, answers with `Cache-Control: no-store` (RFC 6749 5.1: a token
 * response is never cached) and CORS open to any origin (these endpoints use no cookie, and a
 * browser-based assistant must be able to read them), errors in OAuth's shape, requests counted
 * per client address like the API's unauthenticated ones.
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { rateLimitHeaderValues } from '../domain/rate-windows.js';
import { requestCounting, type RequestCounting } from '../http/api-pipeline.js';
import { systemClock } from '../use-cases/ports/clock.js';
import { logger } from '../observability.js';
import { OAuthError } from './errors.js';

/** No registration or token request comes near this. */
export const MAX_OAUTH_BODY_BYTES = 16 * 1024;

type Result = APIGatewayProxyStructuredResultV2;
export type OAuthRoute = (event: APIGatewayProxyEventV2) => Promise<{ status: number; body: unknown }>;

export function jsonResult(status: number, body: unknown, headers: Record<string, string> = {}): Result {
  return {
    statusCode: status,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      Pragma: 'no-cache',
      'Access-Control-Allow-Origin': '*',
      ...headers,
    },
    body: JSON.stringify(body),
  };
}

export function bodyText(event: APIGatewayProxyEventV2): string {
  if (event.body === undefined || event.body === null) return '';
  const text = event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(text) > MAX_OAUTH_BODY_BYTES) throw new OAuthError('invalid_request', 'The request body is too large.');
  return text;
}

function contentType(event: APIGatewayProxyEventV2): string {
  const header = Object.entries(event.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1] ?? '';
  return header.split(';')[0]?.trim().toLowerCase() ?? '';
}

/** RFC 6749 3.2: the token endpoint takes application/x-www-form-urlencoded; a parameter sent twice is an error. */
export function formBody(event: APIGatewayProxyEventV2): Record<string, string> {
  if (contentType(event) !== 'application/x-www-form-urlencoded') {
    throw new OAuthError('invalid_request', 'Send the parameters as application/x-www-form-urlencoded.');
  }
  const form: Record<string, string> = {};
  for (const [name, value] of new URLSearchParams(bodyText(event))) {
    if (name in form) throw new OAuthError('invalid_request', `${name} is sent more than once.`);
    form[name] = value;
  }
  return form;
}

export function jsonBody(event: APIGatewayProxyEventV2): unknown {
  if (contentType(event) !== 'application/json') throw new OAuthError('invalid_client_metadata', 'Send the client metadata as application/json.');
  try {
    return JSON.parse(bodyText(event)) as unknown;
  } catch {
    throw new OAuthError('invalid_client_metadata', 'The body is not valid JSON.');
  }
}

let counting: RequestCounting | undefined;

/**
 * A Lambda handler for an OAuth JSON endpoint. `counted` endpoints (registration, token) count each
 * request against the client address first (429 past the API's per-minute limit), so nobody can
 * register clients or guess codes at machine speed.
 */
export function oauthJsonHandler(route: OAuthRoute, options: { counted: boolean }) {
  return async (event: APIGatewayProxyEventV2): Promise<Result> => {
    let limitHeaders: Record<string, string> = {};
    try {
      if (options.counted) {
        counting ??= requestCounting();
        const decision = await counting.rateLimiter.hit({ kind: 'address', address: event.requestContext.http.sourceIp }, systemClock.now());
        limitHeaders = rateLimitHeaderValues(decision);
        if (!decision.allowed) return jsonResult(429, { error: 'slow_down', error_description: 'Too many requests; retry after the time in Retry-After.' }, limitHeaders);
      }
      const { status, body } = await route(event);
      return jsonResult(status, body, limitHeaders);
    } catch (error) {
      if (error instanceof OAuthError) return jsonResult(error.status, error.toBody(), limitHeaders);
      logger.error('OAuth request failed', { error: error instanceof Error ? error : String(error) });
      return jsonResult(500, { error: 'server_error', error_description: 'Something failed on our side; retry in a moment.' }, limitHeaders);
    }
  };
}
