/**
 * The authorization server's edges over HTTP against the local stack: dynamic registration,
 * authorization requests that are refused (always as a page), the token
 * endpoint's checks, and Client ID Metadata Documents (served here on 127.0.0.1, which only the
 * local stack allows), including documents that must not be used.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../../local/free-port.js';
import { consentFlow } from '../support/direct-consent.js';
import { freshSourceAddress, sendFrom } from '../support/http.js';
import { mcpCall, tokenRequest, toolsList } from '../support/mcp-http.js';
import { provisionUser, type ProvisionedUser } from '../support/provision.js';
import { startTestStack, type TestStack } from '../support/stack.js';

const REDIRECT = 'http://127.0.0.1:9/callback';
let stack: TestStack;
let user: ProvisionedUser;
let documents: Server;
let documentsOrigin: string;
/** path -> [status, content type, body] served by the metadata document server. */
const served = new Map<string, [number, string, string]>();

function pkce(): { verifier: string; challenge: string } {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

async function register(metadata: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await sendFrom<Record<string, unknown>>({
    method: 'POST',
    url: `${stack.origin}/oauth/register`,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return { status: response.status, body: response.body };
}

function authorizeUrl(params: Record<string, string | undefined>): string {
  const url = new URL(`${stack.origin}/oauth/authorize`);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.set(name, value);
  return url.toString();
}

function goodRequest(clientId: string, challenge: string, extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return {
    response_type: 'code',
    client_id: clientId,
    redirect_uri: REDIRECT,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    resource: `${stack.origin}/mcp`,
    scope: 'read write publish',
    state: 'st-123',
    ...extra,
  };
}

/** Authorize and consent as `user`; the URL the browser is sent back to. */
async function authorizeAndConsent(params: Record<string, string | undefined>, answer: { approve?: boolean; scopes?: string[] } = {}): Promise<URL> {
  const response = await sendFrom({ method: 'GET', url: authorizeUrl(params) });
  expect(response.status).toBe(302);
  const location = new URL(response.headers.location ?? '', stack.origin);
  const requestId = location.searchParams.get('request');
  if (!requestId) return location;
  const flow = consentFlow(stack.origin);
  const pending = await flow.show(requestId, user.userId);
  return new URL(await flow.answer({ requestId, formToken: pending.formToken, userId: user.userId, approve: answer.approve ?? true, scopes: answer.scopes ?? pending.scopes }));
}

beforeAll(async () => {
  stack = await startTestStack();
  user = await provisionUser();
  documents = createServer((request, response) => {
    const entry = served.get(request.url ?? '');
    if (!entry) {
      response.writeHead(404).end();
      return;
    }
    const [status, type, body] = entry;
    response.writeHead(status, { 'content-type': type, ...(status === 302 ? { location: 'http://169.254.169.254/latest' } : {}) }).end(body);
  });
  documentsOrigin = `http://127.0.0.1:${await listenOnLoopback(documents)}`;
}, 60_000);

afterAll(async () => {
  await new Promise((resolve) => documents?.close(resolve));
  await stack?.stop();
});

describe('dynamic client registration', () => {
  it('registers a public client and answers its client_id', async () => {
    const { status, body } = await register({ client_name: 'Helper', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(status).toBe(201);
    expect(body).toMatchObject({ client_name: 'Helper', redirect_uris: [REDIRECT], token_endpoint_auth_method: 'none' });
    expect(body.client_id).toMatch(/^mcpc_/);
    expect(body).not.toHaveProperty('client_secret');
  });

  it('refuses script redirect URIs, confidential clients and bodies that are not JSON', async () => {
    expect(await register({ redirect_uris: ['javascript:alert(1)'] })).toMatchObject({ status: 400, body: { error: 'invalid_redirect_uri' } });
    expect(await register({ redirect_uris: [REDIRECT], token_endpoint_auth_method: 'client_secret_basic' })).toMatchObject({
      status: 400,
      body: { error: 'invalid_client_metadata' },
    });
    const notJson = await sendFrom({ method: 'POST', url: `${stack.origin}/oauth/register`, headers: { 'content-type': 'application/json' }, body: '{' });
    expect(notJson.status).toBe(400);
  });
});

describe('authorization requests', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = String((await register({ client_name: 'Edge <b>Cases</b>', redirect_uris: [REDIRECT] })).body.client_id);
  });

  it('shows a page, and sends the browser nowhere, for an unknown client or an unregistered redirect URI', async () => {
    const { challenge } = pkce();
    for (const params of [goodRequest('mcpc_unknown00000000000000000', challenge), goodRequest(clientId, challenge, { redirect_uri: 'https://evil.example/cb' })]) {
      const response = await sendFrom({ method: 'GET', url: authorizeUrl(params) });
      expect(response.status).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'");
    }
  });

  it('shows a page for a malformed request from a known client with its registered redirect URI: never a redirect (RFC 9700 4.11.2)', async () => {
    const { challenge } = pkce();
    const cases: [Record<string, string | undefined>, string][] = [
      [{ code_challenge_method: 'plain' }, 'invalid_request'],
      [{ code_challenge: undefined }, 'invalid_request'],
      [{ resource: undefined }, 'invalid_target'],
      [{ resource: 'https://other.example/mcp' }, 'invalid_target'],
      [{ response_type: 'token' }, 'unsupported_response_type'],
      [{ scope: 'admin' }, 'invalid_scope'],
      [{ state: 'x'.repeat(1001) }, 'too long'],
    ];
    for (const [change, error] of cases) {
      const response = await sendFrom({ method: 'GET', url: authorizeUrl(goodRequest(clientId, challenge, change)) });
      expect(response.status).toBe(400);
      expect(response.headers.location).toBeUndefined();
      expect(response.headers['content-type']).toMatch(/^text\/html/);
      expect(response.text).toContain(error);
    }
  });

  it('a refusal goes back as access_denied', async () => {
    const { challenge } = pkce();
    const back = await authorizeAndConsent(goodRequest(clientId, challenge), { approve: false });
    expect(back.searchParams.get('error')).toBe('access_denied');
    expect(back.searchParams.get('state')).toBe('st-123');
    expect(back.searchParams.get('code')).toBeNull();
  });

  it('a consent request answers once, and only for the person it was shown to', async () => {
    const { challenge } = pkce();
    const response = await sendFrom({ method: 'GET', url: authorizeUrl(goodRequest(clientId, challenge)) });
    const requestId = new URL(response.headers.location ?? '', stack.origin).searchParams.get('request') ?? '';
    const flow = consentFlow(stack.origin);
    const pending = await flow.show(requestId, user.userId);
    await expect(flow.show(requestId, 'usr_someoneelse')).rejects.toThrow(/another sign-in/);
    await expect(flow.answer({ requestId, formToken: 'wrong', userId: user.userId, approve: true, scopes: ['read'] })).rejects.toThrow(/not valid/);
    await flow.answer({ requestId, formToken: pending.formToken, userId: user.userId, approve: true, scopes: ['read'] });
    await expect(flow.answer({ requestId, formToken: pending.formToken, userId: user.userId, approve: true, scopes: ['read'] })).rejects.toThrow(/expired|answered/);
  });
});

describe('token endpoint', () => {
  let clientId: string;
  beforeAll(async () => {
    clientId = String((await register({ client_name: 'Tokens', redirect_uris: [REDIRECT] })).body.client_id);
  });

  it('exchanges a code once, with the right verifier, client and redirect URI only', async () => {
    const { verifier, challenge } = pkce();
    const back = await authorizeAndConsent(goodRequest(clientId, challenge), { scopes: ['read', 'write'] });
    const code = back.searchParams.get('code') ?? '';
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId, resource: `${stack.origin}/mcp` };

    expect((await tokenRequest(stack.origin, { ...form, code_verifier: pkce().verifier })).body).toMatchObject({ error: 'invalid_grant' });
    expect((await tokenRequest(stack.origin, { ...form, client_id: 'mcpc_other000000000000000000' })).body).toMatchObject({ error: 'invalid_grant' });
    expect((await tokenRequest(stack.origin, { ...form, redirect_uri: 'http://127.0.0.1:10/callback' })).body).toMatchObject({ error: 'invalid_grant' });
    expect((await tokenRequest(stack.origin, { ...form, resource: 'https://other.example/mcp' })).body).toMatchObject({ error: 'invalid_target' });

    const first = await tokenRequest(stack.origin, form);
    expect(first.status).toBe(200);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'read write' });
    const again = await tokenRequest(stack.origin, form);
    expect(again.status).toBe(400);
    expect(again.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('a reused code revokes the grant it gave: its access and refresh tokens stop working (RFC 6749 4.1.2)', async () => {
    const { verifier, challenge } = pkce();
    const back = await authorizeAndConsent(goodRequest(clientId, challenge));
    const form = { grant_type: 'authorization_code', code: back.searchParams.get('code') ?? '', code_verifier: verifier, redirect_uri: REDIRECT, client_id: clientId };
    const first = await tokenRequest(stack.origin, form);
    const tokens = first.body as { access_token: string; refresh_token: string };
    expect((await mcpCall(stack.origin, tokens.access_token, toolsList)).status).toBe(200);

    const reuse = await tokenRequest(stack.origin, form);
    expect(reuse.status).toBe(400);
    expect(reuse.body).toMatchObject({ error: 'invalid_grant' });
    const refused = await mcpCall(stack.origin, tokens.access_token, toolsList);
    expect(refused.status).toBe(401);
    expect(refused.headers['www-authenticate']).toContain('error="invalid_token"');
    const refresh = await tokenRequest(stack.origin, { grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: clientId });
    expect(refresh.body).toMatchObject({ error: 'invalid_grant' });
  });

  it('answers OAuth errors for other grant types and malformed requests', async () => {
    expect((await tokenRequest(stack.origin, { grant_type: 'client_credentials' })).body).toMatchObject({ error: 'unsupported_grant_type' });
    expect((await tokenRequest(stack.origin, { grant_type: 'authorization_code' })).body).toMatchObject({ error: 'invalid_request' });
    const json = await sendFrom({ method: 'POST', url: `${stack.origin}/oauth/token`, headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(json.body).toMatchObject({ error: 'invalid_request' });
  });
});

// Each fetch of a metadata document counts against the caller's address (METADATA_FETCHES_PER_MINUTE):
// these requests come from addresses of their own.
describe('client ID metadata documents', () => {
  it('uses the document at the client_id URL: its name is what the person is shown, and its code exchanges', async () => {
    const clientId = `${documentsOrigin}/assistant/client.json`;
    served.set('/assistant/client.json', [200, 'application/json', JSON.stringify({ client_id: clientId, client_name: 'Doc Assistant', redirect_uris: [REDIRECT] })]);
    const { verifier, challenge } = pkce();
    const response = await sendFrom({ method: 'GET', sourceAddress: freshSourceAddress(), url: authorizeUrl(goodRequest(clientId, challenge)) });
    expect(response.status).toBe(302);
    const requestId = new URL(response.headers.location ?? '', stack.origin).searchParams.get('request') ?? '';
    const flow = consentFlow(stack.origin);
    const pending = await flow.show(requestId, user.userId);
    expect(pending.clientName).toBe('Doc Assistant');
    const back = new URL(await flow.answer({ requestId, formToken: pending.formToken, userId: user.userId, approve: true, scopes: ['read'] }));
    const token = await tokenRequest(stack.origin, {
      grant_type: 'authorization_code',
      code: back.searchParams.get('code') ?? '',
      code_verifier: verifier,
      redirect_uri: REDIRECT,
      client_id: clientId,
    });
    expect(token.body).toMatchObject({ token_type: 'Bearer', scope: 'read' });
  });

  it('keeps a client_uri for the consent page only on the client id\'s own origin', async () => {
    const { challenge } = pkce();
    const shown = async (clientId: string): Promise<string | null> => {
      const response = await sendFrom({ method: 'GET', sourceAddress: freshSourceAddress(), url: authorizeUrl(goodRequest(clientId, challenge)) });
      expect(response.status).toBe(302);
      const requestId = new URL(response.headers.location ?? '', stack.origin).searchParams.get('request') ?? '';
      return (await consentFlow(stack.origin).show(requestId, user.userId)).clientUri;
    };
    const document = (path: string, clientUri: string) => {
      const clientId = `${documentsOrigin}${path}`;
      served.set(path, [200, 'application/json', JSON.stringify({ client_id: clientId, client_name: 'Claude', client_uri: clientUri, redirect_uris: [REDIRECT] })]);
      return clientId;
    };
    expect(await shown(document('/uri/own.json', `${documentsOrigin}/about`))).toBe(`${documentsOrigin}/about`);
    expect(await shown(document('/uri/foreign.json', 'https://claude.ai'))).toBeNull();
    const registered = String((await register({ client_name: 'Claude', client_uri: 'https://claude.ai', redirect_uris: [REDIRECT] })).body.client_id);
    expect(await shown(registered)).toBeNull();
  });

  it.each([
    ['a document naming another client_id', '/bad/other-id.json', 200, 'application/json', JSON.stringify({ client_id: 'https://else.example/c.json', redirect_uris: [REDIRECT] })],
    ['a document too large', '/bad/large.json', 200, 'application/json', JSON.stringify({ pad: 'x'.repeat(6000) })],
    ['a redirect', '/bad/redirect.json', 302, 'text/plain', ''],
    ['a document that is not JSON', '/bad/html.json', 200, 'text/html', '<html></html>'],
    ['a document that is missing', '/bad/missing.json', 0, '', ''],
  ])('refuses %s with a page', async (_label, path, status, type, body) => {
    if (status !== 0) served.set(path, [status, type, body]);
    const clientId = `${documentsOrigin}${path}`;
    const response = await sendFrom({ method: 'GET', sourceAddress: freshSourceAddress(), url: authorizeUrl(goodRequest(clientId, pkce().challenge)) });
    expect(response.status).toBe(400);
    expect(response.headers.location).toBeUndefined();
  });

  it('never fetches from private addresses, even over https', async () => {
    for (const clientId of ['https://10.0.0.1/client.json', 'https://169.254.169.254/latest/meta-data.json', 'https://[::1]/c.json']) {
      const response = await sendFrom({ method: 'GET', sourceAddress: freshSourceAddress(), url: authorizeUrl(goodRequest(clientId, pkce().challenge)) });
      expect(response.status).toBe(400);
      expect(response.text).toContain('not a public address');
    }
  });
});
