/**
 * Connecting an X account (platforms.md, "Connecting an account"): OAuth 2.0 authorization code
 * with PKCE S256. The person is sent to X's authorize page; the code comes back to our callback
 * and is exchanged at `POST /2/oauth2/token` with HTTP Basic client authentication and the
 * verifier; `GET /2/users/me` says who connected. Plain fetch through lib/platforms/http.ts, so
 * failures are the classes the rest of the adapters use and never carry a token.
 */
import { ENV, optionalEnv } from '../config.js';
import type { ConnectKind, PlatformConnector, PlatformIdentity } from '../use-cases/ports/connect.js';
import type { PlatformTokens } from '../use-cases/ports/platform-publisher.js';
import { PlatformRefusedError } from '../domain/platform-errors.js';
import { platformClientCredentials, platformClientId, type ClientCredentials } from './client-credentials.js';
import { errorForAnswer, isRecord, parseJson, platformCall, platformFetch, readText, tokenEndpointError, tokensFrom, type PlatformTimeouts } from './http.js';

/** platforms.md: posting needs these; without offline.access there is no refresh token and the connection dies after 2 hours. */
export const X_CONNECT_SCOPES = ['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access'] as const;

export interface XConnectConfig extends PlatformTimeouts {
  /** https://api.x.com, or the sandbox. */
  apiBaseUrl: string;
  /** https://x.com/i/oauth2/authorize, or the sandbox's. */
  authorizeUrl: string;
  clientCredentials: () => Promise<ClientCredentials>;
  /** The client id alone (authorize URLs); from clientCredentials when not given. */
  clientId?: () => Promise<string>;
}

const USER_ID = /^\d{1,19}$/;
const USERNAME = /^[A-Za-z0-9_]{1,50}$/;

export function cleanName(value: unknown, fallback: string): string {
  if (typeof value !== 'string') return fallback;
  const cleaned = value.replace(/[\u0000-\u001f\u007f]/g, '').trim().slice(0, 200);
  return cleaned === '' ? fallback : cleaned;
}

export class XConnector implements PlatformConnector {
  readonly kinds = ['x'] as const;
  private readonly apiBaseUrl: string;

  constructor(private readonly config: XConnectConfig) {
    this.apiBaseUrl = config.apiBaseUrl.replace(/\/+$/, '');
  }

  /** The authorize page's URL (its origin is where the connect form ends up). */
  get authorizeUrlBase(): string {
    return this.config.authorizeUrl;
  }

  async authorizeUrl(input: { kind: ConnectKind; state: string; codeChallenge: string; redirectUri: string }): Promise<string> {
    const clientId = this.config.clientId ? await this.config.clientId() : (await this.config.clientCredentials()).clientId;
    const url = new URL(this.config.authorizeUrl);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: clientId,
      redirect_uri: input.redirectUri,
      scope: X_CONNECT_SCOPES.join(' '),
      state: input.state,
      code_challenge: input.codeChallenge,
      code_challenge_method: 'S256',
    }).toString();
    return url.toString();
  }

  async exchangeCode(input: { code: string; codeVerifier: string; redirectUri: string }): Promise<PlatformTokens> {
    const client = await this.config.clientCredentials();
    const basic = Buffer.from(`${client.clientId}:${client.clientSecret}`).toString('base64');
    const call = platformCall('x', this.config, [input.code, input.codeVerifier, client.clientSecret, basic]);
    const response = await platformFetch(
      `${this.apiBaseUrl}/2/oauth2/token`,
      {
        method: 'POST',
        headers: { 'Content-Type': 'application/x-www-form-urlencoded', Authorization: `Basic ${basic}` },
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: input.code,
          redirect_uri: input.redirectUri,
          code_verifier: input.codeVerifier,
        }).toString(),
      },
      call,
    );
    const text = await readText(response, call);
    if (!response.ok) throw tokenEndpointError({ status: response.status, headers: response.headers, text }, call);
    const tokens = tokensFrom(parseJson(text), '', 'x');
    return { ...tokens, refreshToken: tokens.refreshToken === '' ? null : tokens.refreshToken };
  }

  async identities(input: { kind: ConnectKind; accessToken: string }): Promise<PlatformIdentity[]> {
    const call = platformCall('x', this.config, [input.accessToken]);
    // subscription_type (X's User fields): Premium accounts post up to 25,000 characters.
    const response = await platformFetch(`${this.apiBaseUrl}/2/users/me?user.fields=subscription_type`, { headers: { Authorization: `Bearer ${input.accessToken}` } }, call);
    const text = await readText(response, call);
    if (!response.ok) throw errorForAnswer({ status: response.status, headers: response.headers, text }, call);
    const body = parseJson(text);
    const data = isRecord(body) ? body.data : undefined;
    if (!isRecord(data) || typeof data.id !== 'string' || !USER_ID.test(data.id) || typeof data.username !== 'string' || !USERNAME.test(data.username)) {
      throw new PlatformRefusedError('X did not say which account was connected (users/me answered without id and username)', { platform: 'x', status: response.status });
    }
    const xSubscription = typeof data.subscription_type === 'string' ? data.subscription_type.slice(0, 32) : null;
    return [{ platformUserId: data.id, handle: `@${data.username}`, name: cleanName(data.name, data.username), accountType: 'personal', xSubscription }];
  }
}

export function xConnectorFromEnv(): XConnector {
  const apiBaseUrl = optionalEnv(ENV.xApiBaseUrl, 'https://api.x.com');
  const configuredApi = optionalEnv(ENV.xApiBaseUrl, '');
  // A stand-in (the sandbox) serves the authorize page beside the API, as LinkedIn's OAuth host does.
  const authorizeUrl = optionalEnv(ENV.xAuthorizeUrl, configuredApi ? `${configuredApi.replace(/\/+$/, '')}/i/oauth2/authorize` : 'https://x.com/i/oauth2/authorize');
  return new XConnector({ apiBaseUrl, authorizeUrl, clientCredentials: () => platformClientCredentials('x'), clientId: () => platformClientId('x') });
}
