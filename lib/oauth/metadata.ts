/**
 * Where the assistant server's pieces live, all derived from the service's public origin, and the
 * two discovery documents an MCP client reads first (MCP authorization, revision 2025-11-25):
 * - protected resource metadata (RFC 9728) for the resource `<origin>/mcp`, served at
 *   `/.well-known/oauth-protected-resource/mcp` (the path-suffixed form the revision asks for
 *   first) and at the root form, which older clients try;
 * - authorization server metadata (RFC 8414) at `/.well-known/oauth-authorization-server`: the
 *   issuer is the origin itself, so the path-less form is the only one.
 */
import { MCP_SCOPES } from './scopes.js';

export const MCP_PATH = '/mcp';
export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource/mcp';
export const PROTECTED_RESOURCE_METADATA_ROOT_PATH = '/.well-known/oauth-protected-resource';
export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const AUTHORIZE_PATH = '/oauth/authorize';
export const TOKEN_PATH = '/oauth/token';
export const REGISTER_PATH = '/oauth/register';

export interface ServiceUrls {
  origin: string;
  /** The MCP server: the resource indicator clients send and the audience of every token. */
  resource: string;
  issuer: string;
  protectedResourceMetadata: string;
  authorize: string;
  token: string;
  register: string;
}

export function serviceUrls(origin: string): ServiceUrls {
  const base = new URL(origin).origin;
  return {
    origin: base,
    resource: `${base}${MCP_PATH}`,
    issuer: base,
    protectedResourceMetadata: `${base}${PROTECTED_RESOURCE_METADATA_PATH}`,
    authorize: `${base}${AUTHORIZE_PATH}`,
    token: `${base}${TOKEN_PATH}`,
    register: `${base}${REGISTER_PATH}`,
  };
}

export function protectedResourceMetadata(urls: ServiceUrls): Record<string, unknown> {
  return {
    resource: urls.resource,
    authorization_servers: [urls.issuer],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_name: 'Social publishing assistant server',
  };
}

export function authorizationServerMetadata(urls: ServiceUrls): Record<string, unknown> {
  return {
    issuer: urls.issuer,
    authorization_endpoint: urls.authorize,
    token_endpoint: urls.token,
    registration_endpoint: urls.register,
    scopes_supported: [...MCP_SCOPES],
    response_types_supported: ['code'],
    response_modes_supported: ['query'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    token_endpoint_auth_methods_supported: ['none'],
    code_challenge_methods_supported: ['S256'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/**
 * The challenge of a 401 (RFC 6750 3, RFC 9728 5.1): where the metadata is, which scopes to ask
 * for, and, when a token was presented, why it was refused.
 */
export function bearerChallenge(urls: ServiceUrls, error?: { code: 'invalid_token' | 'insufficient_scope'; description: string; scope?: string }): string {
  const parts = [`resource_metadata="${urls.protectedResourceMetadata}"`, `scope="${error?.scope ?? MCP_SCOPES.join(' ')}"`];
  if (error) parts.push(`error="${error.code}"`, `error_description="${error.description.replace(/["\\]/g, '')}"`);
  return `Bearer ${parts.join(', ')}`;
}
