/** The authorization server's pure rules: redirect URIs, client metadata, client id URLs, scopes, PKCE, addresses. */
import { describe, expect, it } from 'vitest';
import { checkRedirectUri, clientUriToShow, isMetadataDocumentClientId, parseClientMetadata, redirectUriRegistered } from '../../../lib/oauth/client-metadata.js';
import { isPublicAddress } from '../../../lib/oauth/client-metadata-fetcher.js';
import { OAuthError } from '../../../lib/oauth/errors.js';
import { bearerChallenge, serviceUrls } from '../../../lib/oauth/metadata.js';
import { parseScopeParameter, withRead } from '../../../lib/oauth/scopes.js';
import { grantIdOfToken, newGrantId, newToken, pkceMatches } from '../../../lib/oauth/secrets.js';

function errorOf(action: () => unknown): string {
  try {
    action();
  } catch (error) {
    if (error instanceof OAuthError) return error.error;
    throw error;
  }
  return 'none';
}

describe('redirect URIs', () => {
  it.each(['https://app.example/cb', 'http://127.0.0.1:33418/callback', 'http://localhost/cb', 'http://[::1]:8080/cb', 'com.example.app:/oauth'])(
    'accepts %s',
    (uri) => {
      expect(checkRedirectUri(uri)).toBe(uri);
    },
  );

  it.each(['javascript:alert(1)', 'data:text/html,hi', 'http://app.example/cb', 'https://app.example/cb#frag', 'https://user:pw@app.example/cb', 'myapp:/cb', 'not a uri', ''])(
    'refuses %s',
    (uri) => {
      expect(errorOf(() => checkRedirectUri(uri))).toBe('invalid_redirect_uri');
    },
  );

  it('lets only a loopback redirect URI change its port', () => {
    const client = { redirectUris: ['http://127.0.0.1:1000/cb', 'https://app.example/cb'] };
    expect(redirectUriRegistered(client, 'http://127.0.0.1:5555/cb')).toBe(true);
    expect(redirectUriRegistered(client, 'http://127.0.0.1:5555/other')).toBe(false);
    expect(redirectUriRegistered(client, 'http://localhost:1000/cb')).toBe(false);
    expect(redirectUriRegistered(client, 'https://app.example:8443/cb')).toBe(false);
    expect(redirectUriRegistered(client, 'https://app.example/cb?x=1')).toBe(false);
  });
});

describe('client metadata', () => {
  it('keeps a name, a home page and the redirect URIs of a public client', () => {
    expect(parseClientMetadata({ client_name: ' Claude ', client_uri: 'https://claude.ai', redirect_uris: ['https://claude.ai/cb'] })).toEqual({
      clientName: 'Claude',
      clientUri: 'https://claude.ai',
      redirectUris: ['https://claude.ai/cb'],
    });
  });

  it('names a nameless client by where it sends the person back', () => {
    expect(parseClientMetadata({ redirect_uris: ['https://tool.example/cb'] }).clientName).toBe('tool.example');
  });

  it('refuses confidential clients, other grants, script home pages and missing redirect URIs', () => {
    const base = { redirect_uris: ['https://a.example/cb'] };
    expect(errorOf(() => parseClientMetadata({ ...base, token_endpoint_auth_method: 'client_secret_basic' }))).toBe('invalid_client_metadata');
    expect(errorOf(() => parseClientMetadata({ ...base, grant_types: ['client_credentials'] }))).toBe('invalid_client_metadata');
    expect(errorOf(() => parseClientMetadata({ ...base, client_uri: 'javascript:alert(1)' }))).toBe('invalid_client_metadata');
    expect(errorOf(() => parseClientMetadata({ ...base, client_name: 'x'.repeat(101) }))).toBe('invalid_client_metadata');
    expect(errorOf(() => parseClientMetadata({ redirect_uris: [] }))).toBe('invalid_redirect_uri');
    expect(errorOf(() => parseClientMetadata([]))).toBe('invalid_client_metadata');
  });

  it('takes only https URLs with a path as metadata document client ids (http://127.0.0.1 locally)', () => {
    expect(isMetadataDocumentClientId('https://app.example/oauth/client.json', false)).toBe(true);
    expect(isMetadataDocumentClientId('https://app.example/', false)).toBe(false);
    expect(isMetadataDocumentClientId('https://app.example/a/../b.json', false)).toBe(false);
    expect(isMetadataDocumentClientId('https://u:p@app.example/c.json', false)).toBe(false);
    expect(isMetadataDocumentClientId('https://app.example/c.json#x', false)).toBe(false);
    expect(isMetadataDocumentClientId('http://127.0.0.1:4000/c.json', false)).toBe(false);
    expect(isMetadataDocumentClientId('http://127.0.0.1:4000/c.json', true)).toBe(true);
    expect(isMetadataDocumentClientId('http://127.0.0.1.evil.example/c.json', true)).toBe(false);
  });
});

describe('addresses a metadata document may be fetched from', () => {
  it.each(['10.0.0.1', '127.0.0.1', '169.254.169.254', '172.20.1.1', '192.168.1.1', '100.64.0.1', '0.0.0.0', '::1', '::', '::ffff:10.0.0.1', 'fd00::1', 'fe80::1', 'not-an-ip'])(
    'refuses %s',
    (address) => {
      expect(isPublicAddress(address)).toBe(false);
    },
  );
  it.each(['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])('allows %s', (address) => {
    expect(isPublicAddress(address)).toBe(true);
  });
});

describe('scopes', () => {
  it('asks for every scope when none is named, drops unknown ones and adds read', () => {
    expect(parseScopeParameter(undefined)).toEqual(['read', 'write', 'publish', 'media']);
    expect(parseScopeParameter('publish offline_access')).toEqual(['read', 'publish']);
    expect(parseScopeParameter('media admin')).toEqual(['read', 'media']);
    expect(parseScopeParameter('admin')).toBeNull();
    expect(withRead([])).toEqual([]);
  });
});

describe('tokens and PKCE', () => {
  it('checks the RFC 7636 example verifier against its challenge, in S256 only', () => {
    expect(pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(true);
    expect(pkceMatches('dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk', 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk')).toBe(false);
    expect(pkceMatches('short', 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM')).toBe(false);
  });

  it('reads the grant id off a token of the right kind only', () => {
    const grantId = newGrantId();
    expect(grantIdOfToken(newToken('mcpat', grantId), 'mcpat')).toBe(grantId);
    expect(grantIdOfToken(newToken('mcprt', grantId), 'mcpat')).toBeNull();
    expect(grantIdOfToken('ak_abc_def', 'mcpat')).toBeNull();
  });

  it('challenges with the metadata URL and never lets a description break the header', () => {
    const urls = serviceUrls('https://api.example');
    expect(bearerChallenge(urls, { code: 'invalid_token', description: 'bad "token"' })).toBe(
      'Bearer resource_metadata="https://api.example/.well-known/oauth-protected-resource/mcp", scope="read write publish media", error="invalid_token", error_description="bad token"',
    );
  });
});

describe('the client_uri the consent page shows', () => {
  const clientId = 'https://claude.ai/oauth/client.json';
  it.each([
    ['https://claude.ai', 'https://claude.ai'],
    ['https://claude.ai/about?x=1', 'https://claude.ai/about?x=1'],
    ['https://evil.example', null],
    ['https://claude.ai.evil.example/', null],
    ['https://app.claude.ai/', null],
    ['http://claude.ai/', null],
    ['https://claude.ai:8443/', null],
    ['not a url', null],
  ])('for %s is %s', (clientUri, shown) => {
    expect(clientUriToShow(clientId, clientUri)).toBe(shown);
  });

  it('is never shown for a registered client or when there is none', () => {
    expect(clientUriToShow('mcpc_abcdefghijklmnopqrstuvwx', 'https://claude.ai')).toBeNull();
    expect(clientUriToShow(clientId, null)).toBeNull();
  });
});
