/** Turns an ApiResponse into API Gateway's structured result: JSON body, JSON content type, no caching. */
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import type { ApiResponse } from './api-request.js';

const BASE_HEADERS = {
  'Content-Type': 'application/json',
  // Responses are per caller and per moment (rate-limit headers): no shared cache may keep them.
  'Cache-Control': 'no-store',
} as const;

export function toStructuredResult(response: ApiResponse): APIGatewayProxyStructuredResultV2 {
  return {
    statusCode: response.status,
    headers: { ...(response.headers ?? {}), ...BASE_HEADERS },
    body: JSON.stringify(response.body),
  };
}

/** Adds headers to a result already built, replacing same-named ones whatever their case. */
export function withHeaders(
  result: APIGatewayProxyStructuredResultV2,
  headers: Record<string, string>,
): APIGatewayProxyStructuredResultV2 {
  const replaced = new Set(Object.keys(headers).map((name) => name.toLowerCase()));
  const kept = Object.entries(result.headers ?? {}).filter(([name]) => !replaced.has(name.toLowerCase()));
  return { ...result, headers: { ...Object.fromEntries(kept), ...headers } };
}
