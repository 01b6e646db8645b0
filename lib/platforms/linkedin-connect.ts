/**
 * Connecting a LinkedIn member or the pages a member administers (platforms.md, "Connecting an
 * account"): 3-legged OAuth 2.0. The person is sent to `/oauth/v2/authorization` on LinkedIn's
 * OAuth host and consents to every scope asked or none; the code is exchanged at
 * `/oauth/v2/accessToken` (client id and secret in the form, as LinkedIn wants). A member comes
 * from `GET /v2/userinfo` (`sub` is the id of `urn:li:person:{sub}`); pages from
 * `GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR&state=APPROVED` and each page's
 * name from `GET /rest/organizations/{id}` (both need `r_organization_admin`).
 */
import { ENV, optionalEnv } from '../config.js';
import { PlatformRefusedError } from '../domain/platform-errors.js';
import type { ConnectKind, PlatformConnector, PlatformIdentity } from '../use-cases/ports/connect.js';
import type { PlatformTokens } from '../use-cases/ports/platform-publisher.js';
import { platformClientCredentials, platformClientId, type ClientCredentials } from './client-credentials.js';
import { errorForAnswer, isRecord, parseJson, platformCall, platformFetch, readText, tokenEndpointError, tokensFrom, type PlatformTimeouts } from './http.js';
import { cleanName } from './x-connect.js';
import { LINKEDIN_API_VERSION, retiredVersionError } from './linkedin-version.js';

export const LINKEDIN_MEMBER_SCOPES = ['openid', 'profile', 'w_member_social'] as const;
export const LINKEDIN_PAGES_SCOPES = [...LINKEDIN_MEMBER_SCOPES, 'w_organization_social', 'r_organization_admin'] as const;

/** More pages than anyone administers in practice; keeps one connect to a bounded number of lookups. */
const MAX_PAGES = 50;
const MEMBER_ID = /^[A-Za-z0-9_-]{1,64}$/;
const ORGANIZATION_URN = /^urn:li:organization:(\d{1,19})$/;

export interface LinkedinConnectConfig extends PlatformTimeouts {
  /** https://api.linkedin.com, or the sandbox. */
  apiBaseUrl: string;
  /** https://www.linkedin.com (authorization page and token endpoint), or the sandbox. */
  oauthBaseUrl: string;
  apiVersion: string;
  clientCredentials: () => Promise<ClientCredentials>;
  /** The client id alone (authorize URLs); from clientCredentials when not given. */
  clientId?: () => Promise<string>;
}

export class LinkedinConnector implements PlatformConnector {
  readonly kinds = ['linkedin_member', 'linkedin_pages'] as const;
  private readonly apiBaseUrl: string;
  private readonly oauthBaseUrl: string;

  constructor(private readonly config: LinkedinConnectConfig) {
    this.apiBaseUrl = config.apiBaseUrl.replace(/\/+$/, '');
    this.oauthBaseUrl = config.oauthBaseUrl.replace(/\/+$/, '');
  }

  /** LinkedIn's OAuth host (its origin is where the connect form ends up). */
  get oauthOrigin(): string {
    return this.oauthBaseUrl;
  }

  async authorizeUrl(input: { kind: ConnectKind; state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    const clientId = this.config.clientId ? await this.config.clientId() : (await this.config.clientCredentials()).clientId;
    const scopes = input.kind === 'linkedin_pages' ? LINKEDIN_PAGES_SCOPES : LINKEDIN_MEMBER_SCOPES;
    const url = new URL(`${this.oauthBaseUrl}/oauth/v2/authorization`);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: input.redirectUri,
      state: input.state,
      scope: scopes.join(' '),
    }).toString();
    return url.toString();
  }

  async exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<PlatformTokens> {
    const client = await this.config.clientCredentials();
    const call = platformCall('linkedin', this.config, [input.code, client.clientSecret]);
    const response = await platformFetch(
      `${this.oauthBaseUrl}/oauth/v2/accessToken`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: input.code,
          redirect_uri: input.redirectUri,
          client_id: client.clientId,
          client_secret: client.clientSecret,
        }).toString(),
      },
      call,
    );
    const text = await readText(response, call);
    if (!response.ok) throw tokenEndpointError({ status: response.status, headers: response.headers, text }, call);
    const tokens = tokensFrom(parseJson(text), '', 'linkedin');
    // Refresh tokens exist only for approved partner apps; without one the member reconnects after 60 days.
    return { ...tokens, refreshToken: tokens.refreshToken === '' ? null : tokens.refreshToken };
  }

  async identities(input: { kind: ConnectKind; accessToken: string }): Promise<PlatformIdentity[]> {
    if (input.kind === 'linkedin_pages') return this.pages(input.accessToken);
    const body = await this.get('/v2/userinfo', input.accessToken, false);
    if (!isRecord(body) || typeof body.sub !== 'string' || !MEMBER_ID.test(body.sub)) {
      throw new PlatformRefusedError('LinkedIn did not say which member was connected (userinfo answered without sub)', { platform: 'linkedin' });
    }
    // Members have no public handle in the API: the member id stands in for one.
    return [{ platformUserId: body.sub, handle: body.sub, name: cleanName(body.name, 'LinkedIn member'), accountType: 'personal' }];
  }

  private async pages(accessToken: string): Promise<PlatformIdentity[]> {
    const query = new URLSearchParams({ q: 'roleAssignee', role: 'ADMINISTRATOR', state: 'APPROVED', count: String(MAX_PAGES) });
    const body = await this.get(`/rest/organizationAcls?${query.toString()}`, accessToken, true);
    const elements = isRecord(body) && Array.isArray(body.elements) ? body.elements : [];
    const ids = new Set<string>();
    for (const element of elements) {
      if (!isRecord(element) || element.role !== 'ADMINISTRATOR' || (element.state !== undefined && element.state !== 'APPROVED')) continue;
      const match = typeof element.organization === 'string' ? ORGANIZATION_URN.exec(element.organization) : null;
      if (match?.[1]) ids.add(match[1]);
    }
    const pages: PlatformIdentity[] = [];
    for (const id of [...ids].slice(0, MAX_PAGES)) {
      const org = await this.get(`/rest/organizations/${id}`, accessToken, true);
      const vanity = isRecord(org) && typeof org.vanityName === 'string' && /^[A-Za-z0-9_-]{1,100}$/.test(org.vanityName) ? org.vanityName : id;
      pages.push({ platformUserId: id, handle: vanity, name: cleanName(isRecord(org) ? org.localizedName : undefined, `LinkedIn page ${id}`), accountType: 'organization' });
    }
    return pages;
  }

  private async get(path: string, accessToken: string, versioned: boolean): Promise<unknown> {
    const call = platformCall('linkedin', this.config, [accessToken]);
    const headers: Record<string, string> = { Authorization: `Bearer ${accessToken}` };
    if (versioned) {
      headers['LinkedIn-Version'] = this.config.apiVersion;
      headers['X-Restli-Protocol-Version'] = '2.0.0';
    }
    const response = await platformFetch(`${this.apiBaseUrl}${path}`, { headers }, call);
    const text = await readText(response, call);
    if (!response.ok) {
      const answer = { status: response.status, headers: response.headers, text };
      throw (versioned ? retiredVersionError(answer, call, this.config.apiVersion) : null) ?? errorForAnswer(answer, call);
    }
    return parseJson(text);
  }
}

export function linkedinConnectorFromEnv(): LinkedinConnector {
  const configuredBase = optionalEnv(ENV.linkedinApiBaseUrl, '');
  return new LinkedinConnector({
    apiBaseUrl: configuredBase || 'https://api.linkedin.com',
    // The real OAuth host differs from the API host; a stand-in (the sandbox) serves both.
    oauthBaseUrl: optionalEnv(ENV.linkedinOauthBaseUrl, configuredBase || 'https://www.linkedin.com'),
    apiVersion: optionalEnv(ENV.linkedinApiVersion, LINKEDIN_API_VERSION),
    clientCredentials: () => platformClientCredentials('linkedin'),
    clientId: () => platformClientId('linkedin'),
  });
}
