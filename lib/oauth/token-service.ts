/**
 * The token endpoint (POST /oauth/token) and the check of every MCP request's bearer token.
 *
 * - authorization_code: the code (one use: marked used in the transaction that creates the grant;
 *   a second use revokes that grant and its tokens, RFC 6749 4.1.2),
 *   the PKCE verifier (S256), the same client and redirect URI as the authorization, and, when
 *   sent, the same resource. A grant and its first access + refresh tokens come out.
 * - refresh_token: rotation (OAuth 2.1 4.3.1): each refresh token works once and is replaced; a
 *   second use means it leaked, so the whole grant is revoked. Scopes may only narrow.
 * - every token is bound to our MCP URL (the audience); access tokens live 1 hour, refresh tokens
 *   30 days. Only their SHA-256 is stored.
 * - authenticate(): token + grant read together (the grant consistently), so revoking a grant in
 *   settings stops its tokens on the very next request.
 */
import type { User } from '../domain/model.js';
import type { Caller } from '../domain/caller.js';
import type { Clock } from '../use-cases/ports/clock.js';
import type { UserReader } from '../use-cases/ports/users.js';
import { sameResource } from './authorization.js';
import { OAuthError } from './errors.js';
import type { ServiceUrls } from './metadata.js';
import type { AuthorizationCode, Grant, GrantStore, NewTokens, TokenRecord } from './model.js';
import { parseScopeParameter, type McpScope } from './scopes.js';
import { ACCESS_TOKEN_PREFIX, grantIdOfToken, newGrantId, newToken, pkceMatches, REFRESH_TOKEN_PREFIX, sha256Hex } from './secrets.js';

export const ACCESS_TOKEN_SECONDS = 3600;
export const REFRESH_TOKEN_SECONDS = 30 * 24 * 3600;

export interface TokenResponse {
  access_token: string;
  token_type: 'Bearer';
  expires_in: number;
  refresh_token: string;
  scope: string;
}

export interface TokenServiceDeps {
  grants: GrantStore;
  users: UserReader;
  clock: Clock;
  urls: ServiceUrls;
  /** Default 3600; tests shorten it to see an expired token refused. */
  accessTokenSeconds?: number;
}

/** Why a bearer token was refused (the 401's error_description). */
export class InvalidTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidTokenError';
  }
}

export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  async exchange(form: Record<string, string>): Promise<TokenResponse> {
    switch (form.grant_type) {
      case 'authorization_code':
        return this.redeemCode(form);
      case 'refresh_token':
        return this.refresh(form);
      case undefined:
        throw new OAuthError('invalid_request', 'grant_type is required.');
      default:
        throw new OAuthError('unsupported_grant_type', 'Only authorization_code and refresh_token are supported.');
    }
  }

  async authenticate(token: string): Promise<Caller & { grant: Grant }> {
    const grantId = grantIdOfToken(token, ACCESS_TOKEN_PREFIX);
    if (grantId === null) throw new InvalidTokenError('The access token is not one of this server.');
    const [record, grant] = await Promise.all([this.deps.grants.getToken(sha256Hex(token)), this.deps.grants.getGrant(grantId)]);
    if (!record || record.kind !== 'access' || record.grantId !== grantId || !grant) throw new InvalidTokenError('The access token is unknown.');
    if (record.expiresAt <= this.nowSeconds()) throw new InvalidTokenError('The access token has expired; refresh it.');
    if (record.resource !== this.deps.urls.resource) throw new InvalidTokenError('The access token was issued for another resource.');
    if (grant.revokedAt !== null) throw new InvalidTokenError('Access was revoked in settings; sign in again to grant it anew.');
    const user: User | null = await this.deps.users.getUser(grant.userId);
    if (!user) throw new InvalidTokenError('The access token is unknown.');
    return { userId: user.id, keyId: grant.grantId, scopes: [...record.scopes], user, credential: 'assistant_grant', grant };
  }

  private async redeemCode(form: Record<string, string>): Promise<TokenResponse> {
    const { code, code_verifier: verifier, redirect_uri: redirectUri, client_id: clientId } = form;
    if (!code || !verifier || !clientId || !redirectUri) {
      throw new OAuthError('invalid_request', 'code, code_verifier, redirect_uri and client_id are required.');
    }
    const codeHash = sha256Hex(code);
    const record = await this.deps.grants.getCode(codeHash);
    const invalid = (): never => {
      throw new OAuthError('invalid_grant', 'The authorization code is invalid, expired or already used.');
    };
    // RFC 6749 4.1.2: a code used twice was copied; whoever holds the tokens it gave may be the thief.
    if (record?.redeemedGrantId) return this.revokeForReuse(record);
    if (!record || record.expiresAt <= this.nowSeconds() || record.clientId !== clientId || record.redirectUri !== redirectUri) return invalid();
    if (!pkceMatches(verifier, record.codeChallenge)) throw new OAuthError('invalid_grant', 'code_verifier does not match the code_challenge.');
    if (form.resource !== undefined && !sameResource(form.resource, record.resource)) {
      throw new OAuthError('invalid_target', `The code was issued for ${record.resource}.`);
    }
    const now = this.deps.clock.now();
    const grant: Grant = {
      grantId: newGrantId(),
      userId: record.userId,
      clientId: record.clientId,
      clientName: record.clientName,
      clientUri: record.clientUri,
      scopes: record.scopes,
      resource: record.resource,
      createdAt: now.toISOString(),
      revokedAt: null,
    };
    const issued = this.issue(grant.grantId, record.clientId, record.scopes);
    const redeemed = await this.deps.grants.redeemCode(codeHash, grant, issued.records, this.nowSeconds());
    if (!redeemed) {
      // Another exchange of the same code won a race with this one: a reuse too.
      const raced = await this.deps.grants.getCode(codeHash);
      if (raced?.redeemedGrantId) return this.revokeForReuse(raced);
      return invalid();
    }
    return issued.response;
  }

  /** A second exchange of a code: refused, and the grant (with every token) it gave is revoked. */
  private async revokeForReuse(code: AuthorizationCode): Promise<never> {
    if (code.redeemedGrantId) await this.deps.grants.revokeGrant(code.userId, code.redeemedGrantId, this.deps.clock.now());
    throw new OAuthError('invalid_grant', 'The authorization code was already used; the access it gave is revoked. Authorize again.');
  }

  private async refresh(form: Record<string, string>): Promise<TokenResponse> {
    const { refresh_token: token, client_id: clientId } = form;
    if (!token || !clientId) throw new OAuthError('invalid_request', 'refresh_token and client_id are required.');
    const invalid = (): never => {
      throw new OAuthError('invalid_grant', 'The refresh token is invalid, expired or revoked; authorize again.');
    };
    const grantId = grantIdOfToken(token, REFRESH_TOKEN_PREFIX);
    if (grantId === null) return invalid();
    const [record, grant] = await Promise.all([this.deps.grants.getToken(sha256Hex(token)), this.deps.grants.getGrant(grantId)]);
    if (!record || record.kind !== 'refresh' || record.grantId !== grantId || !grant || record.clientId !== clientId) return invalid();
    const now = this.deps.clock.now();
    if (record.usedAt !== null) {
      // A rotated refresh token came back: someone kept a copy. End the grant for both of them.
      await this.deps.grants.revokeGrant(grant.userId, grant.grantId, now);
      return invalid();
    }
    if (grant.revokedAt !== null || record.expiresAt <= this.nowSeconds()) return invalid();
    if (form.resource !== undefined && !sameResource(form.resource, record.resource)) {
      throw new OAuthError('invalid_target', `The refresh token was issued for ${record.resource}.`);
    }
    let scopes: McpScope[] = record.scopes;
    if (form.scope !== undefined) {
      const asked = parseScopeParameter(form.scope);
      if (asked === null || asked.some((scope) => !record.scopes.includes(scope))) {
        throw new OAuthError('invalid_scope', `A refresh may only narrow the granted scopes (${record.scopes.join(' ')}).`);
      }
      scopes = asked;
    }
    const issued = this.issue(grant.grantId, clientId, scopes);
    if (!(await this.deps.grants.rotateRefreshToken(record, issued.records, now))) return invalid();
    return issued.response;
  }

  private issue(grantId: string, clientId: string, scopes: McpScope[]): { response: TokenResponse; records: NewTokens } {
    const accessSeconds = this.deps.accessTokenSeconds ?? ACCESS_TOKEN_SECONDS;
    const access = newToken(ACCESS_TOKEN_PREFIX, grantId);
    const refresh = newToken(REFRESH_TOKEN_PREFIX, grantId);
    const nowSeconds = this.nowSeconds();
    const record = (token: string, kind: TokenRecord['kind'], seconds: number): TokenRecord => ({
      tokenHash: sha256Hex(token),
      kind,
      grantId,
      scopes,
      resource: this.deps.urls.resource,
      clientId,
      expiresAt: nowSeconds + seconds,
      usedAt: null,
    });
    return {
      response: { access_token: access, token_type: 'Bearer', expires_in: accessSeconds, refresh_token: refresh, scope: scopes.join(' ') },
      records: { access: record(access, 'access', accessSeconds), refresh: record(refresh, 'refresh', REFRESH_TOKEN_SECONDS) },
    };
  }

  private nowSeconds(): number {
    return Math.floor(this.deps.clock.now().getTime() / 1000);
  }
}
