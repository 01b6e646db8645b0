/**
 * What an assistant's metadata must say, whether it comes in a dynamic registration (RFC 7591) or
 * as a Client ID Metadata Document (the client_id is an https URL of a JSON document; MCP
 * authorization, revision 2025-11-25). Pure: the fetch is client-metadata-fetcher.ts.
 *
 * Only public clients are accepted (token_endpoint_auth_method `none`): an assistant on someone's
 * machine cannot keep a secret, and PKCE is what binds its code to it. Redirect URIs are https, or
 * http on a loopback address (RFC 8252 7.3: native apps listen on a port of their own), or a
 * private-use scheme with a dot in it (RFC 8252 7.1: `com.example.app:/callback`); never
 * `javascript:`, `data:` or a URI with a fragment.
 */
import { OAuthError } from './errors.js';
import type { OAuthClient } from './model.js';

export const MAX_CLIENT_NAME_LENGTH = 100;
export const MAX_REDIRECT_URIS = 10;
export const MAX_URI_LENGTH = 2000;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
const PRIVATE_USE_SCHEME = /^[a-z][a-z0-9+-]*(\.[a-z0-9+-]+)+:$/;

function fail(description: string): never {
  throw new OAuthError('invalid_client_metadata', description);
}

export function isLoopbackHttp(url: URL): boolean {
  return url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname);
}

/** A redirect URI an assistant may register; throws invalid_redirect_uri otherwise. */
export function checkRedirectUri(value: unknown): string {
  const bad = (why: string): never => {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris: ${why}`);
  };
  if (typeof value !== 'string' || value.length === 0 || value.length > MAX_URI_LENGTH) return bad('each entry must be a URI of at most 2000 characters');
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return bad(`${value} is not an absolute URI`);
  }
  if (url.hash !== '' || value.includes('#')) return bad('a redirect URI must not have a fragment');
  if (url.username !== '' || url.password !== '') return bad('a redirect URI must not carry credentials');
  if (url.protocol === 'https:' || isLoopbackHttp(url) || PRIVATE_USE_SCHEME.test(url.protocol)) return value;
  return bad(`${value} must be https, http on a loopback address, or a private-use scheme such as com.example.app:/callback`);
}

/**
 * Whether a redirect_uri of an authorization request is one the client registered: exact match,
 * except that the port of an http loopback URI may differ (RFC 8252 7.3, OAuth 2.1 8.4.2).
 */
export function redirectUriRegistered(client: Pick<OAuthClient, 'redirectUris'>, redirectUri: string): boolean {
  if (client.redirectUris.includes(redirectUri)) return true;
  let asked: URL;
  try {
    asked = new URL(redirectUri);
  } catch {
    return false;
  }
  if (!isLoopbackHttp(asked) || asked.hash !== '') return false;
  return client.redirectUris.some((registered) => {
    const url = new URL(registered);
    return isLoopbackHttp(url) && url.hostname === asked.hostname && url.pathname === asked.pathname && url.search === asked.search;
  });
}

function optionalUri(value: unknown, field: string): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string' || value.length > MAX_URI_LENGTH) fail(`${field} must be a URI`);
  try {
    const url = new URL(value);
    // Shown as a link on the consent page: only web addresses, never javascript: or data:.
    if (url.protocol !== 'https:' && url.protocol !== 'http:') fail(`${field} must be an http(s) URI`);
  } catch (error) {
    if (error instanceof OAuthError) throw error;
    fail(`${field} must be an absolute URI`);
  }
  return value;
}

/** The fields we keep from a metadata object (registration body or metadata document). */
export function parseClientMetadata(body: unknown): { clientName: string; clientUri: string | null; redirectUris: string[] } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) fail('The client metadata must be a JSON object.');
  const metadata = body as Record<string, unknown>;
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0 || uris.length > MAX_REDIRECT_URIS) {
    throw new OAuthError('invalid_redirect_uri', `redirect_uris must list 1 to ${MAX_REDIRECT_URIS} redirect URIs.`);
  }
  const redirectUris = uris.map(checkRedirectUri);
  const method = metadata.token_endpoint_auth_method;
  if (method !== undefined && method !== 'none') {
    fail('Only public clients are supported: token_endpoint_auth_method must be "none" (PKCE protects the code).');
  }
  const grantTypes = metadata.grant_types;
  if (grantTypes !== undefined) {
    if (!Array.isArray(grantTypes) || !grantTypes.every((grant) => grant === 'authorization_code' || grant === 'refresh_token')) {
      fail('grant_types may only contain authorization_code and refresh_token.');
    }
  }
  const responseTypes = metadata.response_types;
  if (responseTypes !== undefined && (!Array.isArray(responseTypes) || !responseTypes.every((type) => type === 'code'))) {
    fail('response_types may only contain code.');
  }
  const name = metadata.client_name;
  if (name !== undefined && (typeof name !== 'string' || name.trim() === '' || name.length > MAX_CLIENT_NAME_LENGTH)) {
    fail(`client_name must be a string of 1 to ${MAX_CLIENT_NAME_LENGTH} characters.`);
  }
  const clientUri = optionalUri(metadata.client_uri, 'client_uri');
  // A nameless client is named by where it sends the person back, so the consent page still says something true.
  const clientName = typeof name === 'string' ? name.trim() : new URL(redirectUris[0] ?? '').host || 'An unnamed assistant';
  return { clientName, clientUri, redirectUris };
}

/**
 * Whether a client_id is a Client ID Metadata Document URL we may fetch: https with a path, no
 * fragment, no credentials, no dot segments. Locally (`allowLoopback`) http://127.0.0.1 too, so
 * tests can serve one.
 */
export function isMetadataDocumentClientId(clientId: string, allowLoopback: boolean): boolean {
  if (!clientId.startsWith('https://') && !(allowLoopback && clientId.startsWith('http://127.0.0.1'))) return false;
  if (clientId.length > MAX_URI_LENGTH) return false;
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '' || url.pathname === '/') return false;
  if (/\/\.\.?(\/|$)/.test(clientId.slice(url.origin.length))) return false;
  if (url.protocol === 'http:' && !(allowLoopback && url.hostname === '127.0.0.1')) return false;
  return true;
}

/** The client a fetched metadata document describes; its client_id must be the document's own URL. */
export function clientFromMetadataDocument(clientIdUrl: string, document: unknown, now: Date): OAuthClient {
  if (typeof document !== 'object' || document === null || (document as { client_id?: unknown }).client_id !== clientIdUrl) {
    fail('The client metadata document must contain a client_id equal to its own URL.');
  }
  const { clientName, clientUri, redirectUris } = parseClientMetadata(document);
  return { clientId: clientIdUrl, clientName, clientUri, redirectUris, kind: 'metadata_document', createdAt: now.toISOString() };
}

/**
 * The home page the consent page may link: only one on the client id's own origin. A client
 * chooses its client_uri itself (a document on any host can say "Claude, https://claude.ai"), and
 * only a metadata document's URL is an origin the client proved it controls; a registered
 * client's id (mcpc_...) proves no origin, so its client_uri is never shown.
 */
export function clientUriToShow(clientId: string, clientUri: string | null): string | null {
  if (clientUri === null || !/^https?:\/\//.test(clientId)) return null;
  try {
    return new URL(clientUri).origin === new URL(clientId).origin ? clientUri : null;
  } catch {
    return null;
  }
}
