/**
 * GET /oauth/authorize: checks the assistant and its request, then sends the browser on to the
 * consent page in settings (which signs the person in first); anything wrong with the assistant or
 * its request is an error page, never a redirect (lib/oauth/authorization.ts).
 */
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { AuthorizationPageError } from '../../lib/oauth/errors.js';
import { authorizationFlow } from '../../lib/oauth/oauth-dependencies.js';
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

function errorPage(status: number, message: string): APIGatewayProxyStructuredResultV2 {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Assistant sign-in</title></head><body><main><h1>This assistant cannot be signed in</h1><p>${escapeHtml(message)}</p></main></body></html>`;
  return { statusCode: status, headers: PAGE_HEADERS, body };
}

export const handler = async (event: APIGatewayProxyEventV2): Promise<APIGatewayProxyStructuredResultV2> => {
  const query: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.queryStringParameters ?? {})) if (value !== undefined) query[name] = value;
  try {
    const outcome = await authorizationFlow().begin(query);
    return { statusCode: 302, headers: { Location: outcome.location, 'Cache-Control': 'no-store', 'Referrer-Policy': 'no-referrer' }, body: '' };
  } catch (error) {
    if (error instanceof AuthorizationPageError) return errorPage(400, error.message);
    logger.error('Authorization request failed', { error: error instanceof Error ? error : String(error) });
    return errorPage(500, 'Something failed on our side. Please try again from the assistant in a moment.');
  }
};
