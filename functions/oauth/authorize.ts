/**
 * GET /oauth/authorize: checks the assistant and its request, then sends the browser on to the
 * consent page in settings (which signs the person in first); anything wrong with the assistant or
 * its request is an error page, never a redirect (lib/oauth/authorization.ts).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AuthorizationPageError } from '../../lib/oauth/errors.js';
import { rateLimitHeaderValues } from '../../lib/domain/rate-windows.js';
import { addressLimiter, authorizationFlow } from '../../lib/oauth/oauth-dependencies.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { logger } from '../../lib/observability.js';

const PAGE_HEADERS = {
  'Content-Type': 'text/html; charset=utf-8',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'X-Frame-Options': 'DENY',
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cache-Control': 'no-store',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (character) => `&#${character.charCodeAt(0)};`);
}

function withHeaders(result: APIGatewayProxyStructuredResultV2, headers: Record<string, string>): APIGatewayProxyStructuredResultV2 {
  return { ...result, headers: { ...result.headers, ...headers } };
}

function errorPage(status: number, message: string): APIGatewayProxyStructuredResultV2 {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Assistant sign-in</title></head><body><main><h1>This assistant cannot be signed in</h1><p>${escapeHtml(message)}</p></main></body></html>`;
  return { statusCode: status, headers: PAGE_HEADERS, body };
}

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  const address = event.requestContext.http.sourceIp;
  try {
    // Every request stores a pending authorization: counted per address, like registration and tokens.
    const decision = await addressLimiter().hit({ kind: 'address', address }, systemClock.now());
    if (!decision.allowed) {
      return withHeaders(errorPage(429, 'Too many sign-in attempts from your network. Wait a minute, then start again from the assistant.'), rateLimitHeaderValues(decision));
    }
    const outcome = await authorizationFlow().begin(query, address);
    return { statusCode: 302, headers: { Location: outcome.location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }, body: '' };
  } catch (error) {
    if (error instanceof AuthorizationPageError) {
      const page = errorPage(error.status, error.message);
      return error.retryAfterSeconds === null ? page : withHeaders(page, { 'Retry-After': String(error.retryAfterSeconds) });
    }
    logger.error('Authorization request failed', { error: error instanceof Error ? error : String(error) });
    return errorPage(500, 'Something failed on our side. Please try again from the assistant in a moment.');
  }
};
