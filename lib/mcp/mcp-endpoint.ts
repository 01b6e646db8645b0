/**
 * POST /mcp: the MCP server over Streamable HTTP, stateless (no session id, no server-sent event
 * stream), so every request stands alone and runs in a Lambda behind API Gateway as well as in
 * the local stack. The API Gateway payload 2.0 event becomes a Web-standard Request for the SDK's
 * WebStandardStreamableHTTPServerTransport (JSON responses, no SSE), and its Response becomes the
 * structured result.
 *
 * Before the SDK sees anything:
 *   Origin       present and not ours: 403 (the transport spec's DNS-rebinding rule)
 *   token        none, or refused: 401 with `WWW-Authenticate: Bearer resource_metadata=...` so
 *                the client can discover how to sign in; counted against the client address
 *   rate limit   the grant is the caller: counted like an API key (per minute, per day), 429
 *   scope        a tools/call the grant has no scope for: 403 with an insufficient_scope challenge
 * Every response carries the rate-limit headers, as the API's do.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ServerOptions } from '@modelcontextprotocol/sdk/server/index.js';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { rateLimitHeaderValues, unknownDecision } from '../domain/rate-windows.js';
import { bearerToken } from '../http/authenticate.js';
import { logger } from '../observability.js';
import { bearerChallenge, type ServiceUrls } from '../oauth/metadata.js';
import { MCP_SCOPES } from '../oauth/scopes.js';
import type { Scope } from '../domain/model.js';
import { hasScope, insufficientScopeMessage } from '../domain/scopes.js';
import { InvalidTokenError, type TokenService } from '../oauth/token-service.js';
import type { RateDecision } from '../domain/rate-windows.js';
import type { Clock } from '../use-cases/ports/clock.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import { registerTools, toolScope, type McpToolDeps } from './tools.js';

/** An MCP request is a JSON-RPC message; a create of 25 targets with long texts stays far below this. */
export const MAX_MCP_BODY_BYTES = 256 * 1024;
export const SERVER_INFO = { name: 'social-publishing', version: '1.0.0' };

/**
 * The SDK validates JSON Schema for one thing only: a person's answer to a form elicitation, and
 * this server never asks for one. Its default validator is ajv (with ajv-formats and fast-uri, 133
 * kB of the bundle; the bundles leave it out, infra/constructs/bundling.ts BUNDLE_ALIASES), and even
 * the small cfworker one is 23 kB of the bundle and of every cold start. This one refuses every
 * answer, so an elicitation added one day fails with this message instead of going unchecked.
 */
export const NO_ELICITATION_VALIDATOR: jsonSchemaValidator = {
  getValidator: () => () => ({
    valid: false,
    data: undefined,
    errorMessage: 'this server asks for no elicitation (lib/mcp/mcp-endpoint.ts): give the MCP server a JSON Schema validator first',
  }),
};

export const MCP_SERVER_OPTIONS: ServerOptions = {
  instructions:
    'Publishes social posts for the signed-in person. Always call create_posts first WITHOUT confirm to get a preview, show it to the person, and only after they agree call it again with confirm: true and the same idempotencyKey. Then poll get_post until published or failed.',
  jsonSchemaValidator: NO_ELICITATION_VALIDATOR,
};

export interface McpEndpointDeps {
  tokens: TokenService;
  limiter: RateLimiter;
  clock: Clock;
  perMinute: number;
  urls: ServiceUrls;
  tools: McpToolDeps;
}

type Result = APIGatewayProxyStructuredResultV2;

function json(statusCode: number, body: unknown, headers: Record<string, string> = {}): Result {
  return { statusCode, headers: { 'Content-Type': 'application/json', 'Cache-Control': 'no-store', ...headers }, body: JSON.stringify(body) };
}

function jsonRpcError(statusCode: number, message: string, headers: Record<string, string> = {}): Result {
  return json(statusCode, { jsonrpc: '2.0', error: { code: -32000, message }, id: null }, headers);
}

export async function handleMcpRequest(event: APIGatewayProxyEventV2, deps: McpEndpointDeps): Promise<Result> {
  const now = deps.clock.now();
  let decision: RateDecision = unknownDecision(now, deps.perMinute);
  const finish = (result: Result): Result => ({ ...result, headers: { ...(result.headers ?? {}), ...rateLimitHeaderValues(decision) } });

  const headers = lowerCaseHeaders(event);
  const method = event.requestContext.http.method.toUpperCase();
  if (method !== 'POST') {
    // Stateless: no stream to open with GET and no session to end with DELETE.
    return finish(jsonRpcError(405, 'This server is stateless: send every message with POST.', { Allow: 'POST' }));
  }
  if (headers.origin !== undefined && headers.origin !== deps.urls.origin) {
    return finish(jsonRpcError(403, 'Requests from this Origin are not accepted.'));
  }

  const token = bearerToken(headers.authorization);
  let caller;
  try {
    if (token === null) throw new InvalidTokenError('');
    caller = await deps.tokens.authenticate(token);
  } catch (error) {
    if (!(error instanceof InvalidTokenError)) throw error;
    decision = await deps.limiter.hit({ kind: 'address', address: event.requestContext.http.sourceIp }, now);
    if (!decision.allowed) return finish(jsonRpcError(429, 'Too many requests; retry after the time in Retry-After.'));
    const challenge =
      token === null ? bearerChallenge(deps.urls) : bearerChallenge(deps.urls, { code: 'invalid_token', description: error.message });
    return finish(jsonRpcError(401, token === null ? 'Sign in: this server needs an OAuth access token.' : error.message, { 'WWW-Authenticate': challenge }));
  }

  decision = await deps.limiter.hit({ kind: 'key', keyId: caller.keyId }, now);
  if (!decision.allowed) {
    const daily = decision.code === 'rate_limit_daily';
    return finish(jsonRpcError(429, daily ? 'Daily request limit reached; retry after the time in Retry-After.' : 'Too many requests in this minute; retry after the time in Retry-After.'));
  }

  const body = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
  if (Buffer.byteLength(body) > MAX_MCP_BODY_BYTES) return finish(jsonRpcError(413, 'The message is too large.'));
  const refusal = scopeRefusal(body, caller, deps.urls);
  if (refusal) return finish(refusal);
  const request = new Request(`${deps.urls.origin}${event.rawPath}${event.rawQueryString ? `?${event.rawQueryString}` : ''}`, {
    method,
    headers: Object.entries(headers),
    body,
  });

  const server = new McpServer(SERVER_INFO, MCP_SERVER_OPTIONS);
  registerTools(server, caller, deps.tools);
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: MAX_MCP_BODY_BYTES,
  });
  try {
    await server.connect(transport);
    const response = await transport.handleRequest(request, {
      authInfo: { token: '', clientId: caller.grant.clientId, scopes: [...caller.scopes], extra: { grantId: caller.grant.grantId } },
    });
    const out: Record<string, string> = {};
    response.headers.forEach((value, name) => {
      out[name] = value;
    });
    return finish({ statusCode: response.status, headers: { ...out, 'Cache-Control': 'no-store' }, body: await response.text() });
  } catch (error) {
    logger.error('MCP request failed', { error: error instanceof Error ? error : String(error) });
    return finish(jsonRpcError(500, 'Something failed on our side; retry in a moment.'));
  } finally {
    await server.close().catch(() => undefined);
  }
}

/**
 * A tools/call the grant has no scope for: HTTP 403 with `WWW-Authenticate: Bearer
 * error="insufficient_scope", scope="..."` (RFC 6750 3.1, MCP authorization 2025-11-25 "Scope
 * challenge handling"), so the client can ask the person for more and retry. The scope named is
 * what the grant has plus what this call needs, so stepping up never loses access the person gave.
 * Anything that is not one tools/call (or not JSON) goes on to the SDK, which answers it.
 */
function scopeRefusal(body: string, caller: { scopes: readonly Scope[] }, urls: ServiceUrls): Result | null {
  let message: unknown;
  try {
    message = JSON.parse(body);
  } catch {
    return null;
  }
  if (typeof message !== 'object' || message === null || Array.isArray(message)) return null;
  const { method, params, id } = message as { method?: unknown; params?: unknown; id?: unknown };
  if (method !== 'tools/call' || typeof params !== 'object' || params === null) return null;
  const { name, arguments: args } = params as { name?: unknown; arguments?: unknown };
  if (typeof name !== 'string') return null;
  const needed = toolScope(name, typeof args === 'object' && args !== null && !Array.isArray(args) ? (args as Record<string, unknown>) : {});
  if (needed === null || hasScope(caller.scopes, needed)) return null;
  const description = insufficientScopeMessage('assistant_grant', needed);
  const scope = MCP_SCOPES.filter((each) => each === needed || caller.scopes.includes(each)).join(' ');
  return json(
    403,
    { jsonrpc: '2.0', error: { code: -32000, message: description }, id: typeof id === 'string' || typeof id === 'number' ? id : null },
    { 'WWW-Authenticate': bearerChallenge(urls, { code: 'insufficient_scope', description, scope }) },
  );
}

function lowerCaseHeaders(event: APIGatewayProxyEventV2): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(event.headers ?? {})) if (value !== undefined) headers[name.toLowerCase()] = value;
  // The body is handed over already read: its framing headers no longer describe anything.
  delete headers['content-length'];
  delete headers['transfer-encoding'];
  return headers;
}
