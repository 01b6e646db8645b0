/**
 * The request and response shapes routes work with, so a route never touches API Gateway's event
 * format: header names lower-cased, query parameters decoded, the body parsed only when the route
 * asked for JSON (lib/http/json-body.ts).
 */
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { Caller } from '../domain/caller.js';

export interface ApiRequest {
  method: string;
  path: string;
  pathParameters: Record<string, string>;
  /** Decoded query parameters. API Gateway joins a repeated parameter's values with a comma. */
  query: Record<string, string>;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The parsed JSON object when the route uses `jsonBody: true`; otherwise undefined. */
  body: unknown;
  /** The body as received (base64 decoded), or null when there is none. */
  rawBody: string | null;
  sourceIp: string;
  requestId: string;
}

export interface ApiResponse {
  status: number;
  /** Serialised as JSON. */
  body: unknown;
  headers?: Record<string, string>;
}

/** A route of an authenticated endpoint: the caller is verified, counted and subscribed. */
export type Route = (request: ApiRequest, caller: Caller) => Promise<ApiResponse>;

/** A route that runs without authentication (only the unknown-route handler). */
export type AnonymousRoute = (request: ApiRequest) => Promise<ApiResponse>;

export function toApiRequest(event: APIGatewayProxyEventV2): ApiRequest {
  const headers = definedOnly(event.headers, (name) => name.toLowerCase());
  const rawBody =
    event.body === undefined || event.body === null
      ? null
      : event.isBase64Encoded
        ? Buffer.from(event.body, 'base64').toString('utf8')
        : event.body;
  return {
    method: event.requestContext.http.method.toUpperCase(),
    path: event.rawPath,
    pathParameters: definedOnly(event.pathParameters),
    query: definedOnly(event.queryStringParameters),
    headers,
    body: undefined,
    rawBody,
    sourceIp: event.requestContext.http.sourceIp,
    requestId: event.requestContext.requestId,
  };
}

/**
 * Object.fromEntries defines own properties, so a parameter or header literally named `__proto__`
 * stays an ordinary entry (and is seen by the unknown-parameter checks) instead of touching the prototype.
 */
function definedOnly(
  values: Record<string, string | undefined> | undefined,
  rename: (name: string) => string = (name) => name,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(values ?? {}).flatMap(([name, value]) => (value === undefined ? [] : [[rename(name), value]])),
  );
}
