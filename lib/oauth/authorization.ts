/**
 * The authorization endpoint and the consent it leads to (OAuth 2.1 authorization code with PKCE,
 * RFC 8707 resource indicators, MCP authorization 2025-11-25).
 *
 *   GET /oauth/authorize            begin(): checks the client and the request, stores it for 10
 *                                   minutes, and sends the browser to the consent page in settings
 *                                   (which signs the person in first, through the settings sign-in)
 *   GET /settings/assistants/consent   show(): binds the request to the signed-in person
 *   POST /settings/assistants/consent  answer(): approve (possibly fewer scopes) or refuse; either
 *                                   way the browser goes back to the assistant's redirect URI
 *
 * Until the client, its redirect URI (exact match) and the whole request are valid, errors are
 * pages (AuthorizationPageError) and the browser goes nowhere (RFC 9700 4.11.2: never an open
 * redirector). Only the person's answer goes back to the assistant's redirect URI, as a code or
 * `error=access_denied` (RFC 6749 4.1.2.1), with `state` and `iss` (RFC 9207), which lets the
 * assistant tell our answers from a mix-up.
 */
import { randomToken } from '../domain/ids.js';
import type { Clock } from '../use-cases/ports/clock.js';
import { clientUriToShow, redirectUriRegistered } from './client-metadata.js';
import type { ClientDirectory } from './clients.js';
import { AuthorizationPageError, type OAuthErrorCode } from './errors.js';
import type { ServiceUrls } from './metadata.js';
import type { AuthorizationCode, GrantStore, PendingAuthorization } from './model.js';
import { MCP_SCOPES, parseScopeParameter, withRead, type McpScope } from './scopes.js';
import { constantTimeEquals, newSecret, sha256Hex } from './secrets.js';

export const PENDING_AUTHORIZATION_SECONDS = 10 * 60;
export const CODE_SECONDS = 10 * 60;
export const CONSENT_PATH = '/settings/assistants/consent';
const MAX_STATE_LENGTH = 1000;

export type AuthorizationOutcome = { kind: 'consent'; location: string };

export interface AuthorizationDeps {
  clients: ClientDirectory;
  grants: GrantStore;
  clock: Clock;
  urls: ServiceUrls;
}

export class Authorization {
  constructor(private readonly deps: AuthorizationDeps) {}

  /** `callerAddress`: the browser's address, which any metadata-document fetch is counted against. */
  async begin(query: Record<string, string>, callerAddress: string): Promise<AuthorizationOutcome> {
    // RFC 9700 4.11.2: anyone may register any https redirect URI, so a redirect from here is an
    // open redirector unless the request is also valid. Every malformed request is a page; only
    // the person's answer on the consent page goes back to the assistant (access_denied or a code).
    // The request's own fields are checked first: a malformed one costs no client lookup or fetch.
    const state = query.state ?? null;
    if (state !== null && state.length > MAX_STATE_LENGTH) throw new AuthorizationPageError('The assistant sent a state parameter that is too long.');
    if (query.response_type !== 'code') throw refused('unsupported_response_type', 'Only response_type=code is supported.');
    const challenge = query.code_challenge;
    if (query.code_challenge_method !== 'S256' || challenge === undefined || !/^[A-Za-z0-9_-]{43}$/.test(challenge)) {
      throw refused('invalid_request', 'PKCE is required: code_challenge (43 base64url characters) with code_challenge_method=S256.');
    }
    if (query.resource === undefined) throw refused('invalid_target', `The resource parameter is missing; it must be ${this.deps.urls.resource}.`);
    if (!sameResource(query.resource, this.deps.urls.resource)) throw refused('invalid_target', `This server only issues tokens for ${this.deps.urls.resource}.`);
    const scopes = parseScopeParameter(query.scope);
    if (scopes === null) throw refused('invalid_scope', `The assistant asked for an unknown scope; it may ask for some of: ${MCP_SCOPES.join(' ')}.`);

    const client = await this.deps.clients.resolveForAuthorization(query.client_id, callerAddress);
    const redirectUri = query.redirect_uri ?? (client.redirectUris.length === 1 ? client.redirectUris[0] : undefined);
    if (redirectUri === undefined) throw new AuthorizationPageError('The assistant did not say where to send you back (redirect_uri is missing).');
    if (!redirectUriRegistered(client, redirectUri)) {
      throw new AuthorizationPageError('The assistant asked to send you back to an address it did not register; nothing was authorized.');
    }

    const pending: PendingAuthorization = {
      requestId: `req_${randomToken(24)}`,
      userId: null,
      clientId: client.clientId,
      clientName: client.clientName,
      // What the consent page links, and the grant keeps for the Assistants page.
      clientUri: clientUriToShow(client.clientId, client.clientUri),
      redirectUri,
      codeChallenge: challenge,
      resource: this.deps.urls.resource,
      scopes,
      state,
      formToken: newSecret(),
      expiresAt: this.nowSeconds() + PENDING_AUTHORIZATION_SECONDS,
    };
    await this.deps.grants.putPendingAuthorization(pending);
    return { kind: 'consent', location: `${CONSENT_PATH}?request=${pending.requestId}` };
  }

  /** The request the consent page shows, bound to this person from now on. */
  async show(requestId: string | undefined, userId: string): Promise<PendingAuthorization> {
    const pending = await this.live(requestId);
    if (!(await this.deps.grants.bindPendingAuthorization(pending.requestId, userId))) {
      throw new AuthorizationPageError('This authorization request belongs to another sign-in. Start again from the assistant.');
    }
    return { ...pending, userId };
  }

  /** The person's answer: the URL to send the browser back to the assistant with. */
  async answer(input: { requestId: string | undefined; formToken: string | undefined; userId: string; approve: boolean; scopes: readonly string[] }): Promise<string> {
    const pending = await this.live(input.requestId);
    if (pending.userId !== input.userId || input.formToken === undefined || !constantTimeEquals(input.formToken, pending.formToken)) {
      throw new AuthorizationPageError('This consent form is not valid any more. Start again from the assistant.');
    }
    const base = { state: pending.state, iss: this.deps.urls.issuer };
    const chosen = withRead(pending.scopes.filter((scope) => input.scopes.includes(scope)));
    if (!input.approve || chosen.length === 0) {
      if (!(await this.deps.grants.answerPendingAuthorization(pending.requestId, input.userId, null))) throw answeredAlready();
      return redirectWith(pending.redirectUri, { ...base, error: 'access_denied', error_description: 'The person refused the request.' });
    }
    const code = newSecret();
    const record: AuthorizationCode = {
      codeHash: sha256Hex(code),
      userId: input.userId,
      clientId: pending.clientId,
      clientName: pending.clientName,
      clientUri: pending.clientUri,
      redirectUri: pending.redirectUri,
      codeChallenge: pending.codeChallenge,
      resource: pending.resource,
      scopes: chosen,
      expiresAt: this.nowSeconds() + CODE_SECONDS,
      redeemedGrantId: null,
    };
    if (!(await this.deps.grants.answerPendingAuthorization(pending.requestId, input.userId, record))) throw answeredAlready();
    return redirectWith(pending.redirectUri, { ...base, code });
  }

  private async live(requestId: string | undefined): Promise<PendingAuthorization> {
    const pending = requestId && /^req_[0-9A-Za-z]{24}$/.test(requestId) ? await this.deps.grants.getPendingAuthorization(requestId) : null;
    if (!pending || pending.expiresAt <= this.nowSeconds()) {
      throw new AuthorizationPageError('This authorization request has expired or was already answered. Start again from the assistant.');
    }
    return pending;
  }

  private nowSeconds(): number {
    return Math.floor(this.deps.clock.now().getTime() / 1000);
  }
}

/** A malformed request, shown as a page that names the OAuth error for the assistant's developer. */
function refused(error: OAuthErrorCode, description: string): AuthorizationPageError {
  return new AuthorizationPageError(`The assistant's request is not valid (${error}): ${description} Nothing was authorized.`);
}

function answeredAlready(): AuthorizationPageError {
  return new AuthorizationPageError('This authorization request was already answered. Start again from the assistant.');
}

/** The resource indicator names our MCP server (a trailing slash is the same resource). */
export function sameResource(asked: string, resource: string): boolean {
  return asked === resource || asked === `${resource}/`;
}

export function redirectWith(redirectUri: string, params: Record<string, string | null>): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) if (value !== null) url.searchParams.set(name, value);
  return url.toString();
}

export type { McpScope };
