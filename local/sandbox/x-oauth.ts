/**
 * The sandbox X's side of "Connecting an account" (platforms.md): the authorize page at
 * `/i/oauth2/authorize` (a consent page where the person picks a sandbox identity, or cancels
 * and is sent back with `error=access_denied`), the authorization-code grant of
 * `POST /2/oauth2/token` (HTTP Basic client authentication, PKCE S256 verified, codes single use
 * and short-lived), and `GET /2/users/me`. The refresh grant stays in x.ts; it hands the
 * authorization-code grant to `exchange` here.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { issueSandboxTokens, parseSandboxToken } from '../../lib/domain/sandbox-tokens.js';
import type { XSubscription } from '../../lib/domain/model.js';
import { sendJson } from './common.js';
import {
  IdentityBook,
  consentPage,
  errorPage,
  readAuthorizeRequest,
  readForm,
  redirectTo,
  redirectUriAllowed,
  s256,
  sendHtml,
  type SandboxAppRegistration,
  type SandboxIdentity,
} from './oauth-consent.js';

/** X user ids are up to 19 digits; these sit in the range of real recent ids. */
export const X_SANDBOX_IDENTITIES: readonly SandboxIdentity[] = [
  { id: '1850000000000000001', username: 'sandbox_ana', name: 'Ana Sandbox', behaviour: 'ok' },
  { id: '1850000000000000002', username: 'sandbox_bo', name: 'Bo Sandbox', behaviour: 'ok' },
  { id: '1850000000000000003', username: 'sandbox_flaky', name: 'Flaky Sandbox', behaviour: 'flaky' },
  { id: '1850000000000000004', username: 'sandbox_refused', name: 'Refused Sandbox', behaviour: 'refuse' },
  // Native formats' failures (issue 22): a first comment refused, a thread refused at its part 3.
  { id: '1850000000000000005', username: 'sandbox_nocomment', name: 'No Comment Sandbox', behaviour: 'refuse-comment' },
  { id: '1850000000000000006', username: 'sandbox_thread3', name: 'Thread Three Sandbox', behaviour: 'refuse-part-3' },
];

/** platforms.md: X codes are short-lived (about 30 s). */
const CODE_LIFETIME_MS = 30_000;
const PKCE_VERIFIER = /^[A-Za-z0-9._~-]{43,128}$/;
const KNOWN_SCOPES = new Set(['tweet.read', 'tweet.write', 'users.read', 'media.write', 'offline.access', 'follows.read', 'like.read']);
const AUTHORIZE_PATH = '/i/oauth2/authorize';

export class XOAuthSandbox {
  readonly identities = new IdentityBook(X_SANDBOX_IDENTITIES);

  constructor(
    private readonly app: SandboxAppRegistration,
    /** Where the sandbox X is served (the consent form posts back to it). */
    private readonly baseUrl: () => string,
    /** X's `subscription_type` for a token's subject (index.ts: admin CLI `--x-subscription`). */
    private readonly subscriptionOf: (subject: string) => Promise<XSubscription> = async () => 'None',
  ) {}

  /** True for the paths this module serves; index.ts routes them here before x.ts. */
  serves(method: string, path: string): boolean {
    return (path === AUTHORIZE_PATH && (method === 'GET' || method === 'POST')) || (method === 'GET' && path === '/2/users/me');
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (path === '/2/users/me') return this.me(req, res, query);
    if (req.method === 'GET') return this.authorize(res, query, false);
    const form = await readForm(req);
    if (!form) return errorPage(res, 'X', 'The consent form must be posted as application/x-www-form-urlencoded.');
    return this.authorize(res, form, true);
  }

  private authorize(res: ServerResponse, params: URLSearchParams, decided: boolean): void {
    const request = readAuthorizeRequest(params);
    // Never redirect to an address that is not registered for the client: show the error instead.
    if (request.clientId !== this.app.clientId) return errorPage(res, 'X', 'Something went wrong: this app (client_id) is not known.');
    if (!redirectUriAllowed(this.app, request.redirectUri)) return errorPage(res, 'X', 'Something went wrong: redirect_uri is not registered for this app.');
    const fail = (description: string) => redirectTo(res, request.redirectUri, { error: 'invalid_request', error_description: description, state: request.state });
    if (params.get('response_type') !== 'code') return fail('response_type must be code');
    if (request.state === '') return fail('state is required');
    if (request.codeChallenge === '' || request.codeChallengeMethod !== 'S256') return fail('code_challenge with code_challenge_method=S256 is required');
    const scopes = request.scope.split(' ').filter((scope) => scope !== '');
    if (scopes.length === 0 || scopes.some((scope) => !KNOWN_SCOPES.has(scope))) {
      return redirectTo(res, request.redirectUri, { error: 'invalid_scope', state: request.state });
    }
    if (!decided) {
      const choices = this.identities.list().map((identity) => ({ value: identity.id, label: `@${identity.username ?? identity.id} (${identity.name})` }));
      return sendHtml(res, 200, consentPage({ platformName: 'X', appName: 'Social Publishing (sandbox app)', action: `${this.baseUrl()}${AUTHORIZE_PATH}`, request, scopes, choices }));
    }
    if (params.get('decision') !== 'allow') return redirectTo(res, request.redirectUri, { error: 'access_denied', state: request.state });
    const identity = this.identities.get(params.get('identity') ?? '');
    if (!identity) return errorPage(res, 'X', 'Pick an account to sign in as.');
    const code = this.identities.issueCode(
      { clientId: request.clientId, redirectUri: request.redirectUri, scopes, subject: identity.id, codeChallenge: request.codeChallenge },
      CODE_LIFETIME_MS,
    );
    return redirectTo(res, request.redirectUri, { code, state: request.state });
  }

  /**
   * The authorization-code grant; x.ts has already checked the client's HTTP Basic credentials.
   * Answers as X does: 400 `invalid_request` for a bad, used or expired code or a PKCE mismatch.
   */
  exchange(form: URLSearchParams, clientId: string): { status: number; body: unknown } {
    const invalid = { status: 400, body: { error: 'invalid_request', error_description: 'Value passed for the authorization code was invalid.' } };
    const code = this.identities.takeCode(form.get('code') ?? '');
    if (!code || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri')) return invalid;
    const verifier = form.get('code_verifier') ?? '';
    if (!PKCE_VERIFIER.test(verifier) || code.codeChallenge === null || s256(verifier) !== code.codeChallenge) return invalid;
    const issued = issueSandboxTokens(code.subject, 'x', new Date());
    const body: Record<string, unknown> = { token_type: 'bearer', expires_in: 7200, access_token: issued.accessToken, scope: code.scopes.join(' ') };
    // platforms.md: a refresh token only with offline.access.
    if (code.scopes.includes('offline.access')) body.refresh_token = issued.refreshToken;
    return { status: 200, body };
  }

  /**
   * Who the token belongs to: a consent-flow identity, or an account the admin CLI connected (its
   * token names it; it answers with a stand-in id and username). `subscription_type` only when
   * asked for with `user.fields`, as X answers.
   */
  private async me(req: IncomingMessage, res: ServerResponse, query: URLSearchParams): Promise<void> {
    const match = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    const parsed = match?.[1] ? parseSandboxToken(match[1]) : null;
    const unauthorized = () => sendJson(res, 401, { title: 'Unauthorized', type: 'about:blank', status: 401, detail: 'Unauthorized' });
    if (parsed?.kind !== 'access') return unauthorized();
    const identity = this.identities.get(parsed.accountId);
    if (identity?.behaviour === 'expired') return unauthorized();
    const fields = (query.get('user.fields') ?? '').split(',');
    const subscription = fields.includes('subscription_type') ? { subscription_type: await this.subscriptionOf(parsed.accountId) } : {};
    if (identity) return sendJson(res, 200, { data: { id: identity.id, name: identity.name, username: identity.username ?? identity.id, ...subscription } });
    if (!/^acct_[A-Za-z0-9]+$/.test(parsed.accountId)) return unauthorized();
    const digits = [...parsed.accountId].map((character) => character.charCodeAt(0) % 10).join('').slice(0, 18);
    return sendJson(res, 200, { data: { id: `1${digits}`, name: 'Sandbox account', username: `sb_${parsed.accountId.slice(5, 17)}`, ...subscription } });
  }
}
