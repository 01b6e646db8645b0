/**
 * The sandbox LinkedIn's side of "Connecting an account" (platforms.md): the authorization page
 * at `/oauth/v2/authorization` (consent to every scope asked or none: Cancel sends the person back
 * with `error=access_denied`), the authorization-code grant of `POST /oauth/v2/accessToken`
 * (linkedin.ts checks the client credentials of the form and hands the grant to `exchange`),
 * `GET /v2/userinfo` (OpenID Connect: `sub`, `name`), and for pages
 * `GET /rest/organizationAcls?q=roleAssignee&role=ADMINISTRATOR` plus `GET /rest/organizations/{id}`
 * for each page's name. Those two need `r_organization_admin`, as on LinkedIn.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { issueSandboxTokens, parseSandboxToken } from '../../lib/domain/sandbox-tokens.js';
import { sendJson } from './common.js';
import { inactiveVersionAnswer } from './linkedin.js';
import {
  IdentityBook,
  consentPage,
  errorPage,
  readAuthorizeRequest,
  readForm,
  redirectTo,
  redirectUriAllowed,
  sendHtml,
  type SandboxAppRegistration,
  type SandboxIdentity,
} from './oauth-consent.js';

export interface SandboxOrganization {
  id: string;
  name: string;
  vanityName: string;
  /** Member ids (`sub`) that administer the page. */
  administrators: string[];
}

export const LINKEDIN_SANDBOX_MEMBERS: readonly SandboxIdentity[] = [
  { id: 'sbxAnaExample1', name: 'Ana Example', behaviour: 'ok' },
  { id: 'sbxBoExample22', name: 'Bo Example', behaviour: 'ok' },
];

export const LINKEDIN_SANDBOX_ORGANIZATIONS: readonly SandboxOrganization[] = [
  { id: '90000001', name: 'Example Org', vanityName: 'example-org', administrators: ['sbxAnaExample1'] },
  { id: '90000002', name: 'Example Labs', vanityName: 'example-labs', administrators: ['sbxAnaExample1'] },
];

/** platforms.md: codes are valid about 10 minutes. */
const CODE_LIFETIME_MS = 10 * 60_000;
const KNOWN_SCOPES = new Set(['openid', 'profile', 'email', 'w_member_social', 'w_organization_social', 'r_organization_admin', 'r_organization_social', 'rw_organization_admin']);
const AUTHORIZE_PATH = '/oauth/v2/authorization';

export class LinkedinOAuthSandbox {
  readonly identities = new IdentityBook(LINKEDIN_SANDBOX_MEMBERS);
  /** Scopes granted to each access token issued here (refreshed tokens are not tracked: they pass). */
  private readonly grantedScopes = new Map<string, string[]>();

  constructor(
    private readonly app: SandboxAppRegistration,
    private readonly baseUrl: () => string,
  ) {}

  serves(method: string, path: string): boolean {
    if (path === AUTHORIZE_PATH) return method === 'GET' || method === 'POST';
    return method === 'GET' && (path === '/v2/userinfo' || path === '/rest/organizationAcls' || /^\/rest\/organizations\/\d+$/.test(path));
  }

  async handle(req: IncomingMessage, res: ServerResponse, path: string, query: URLSearchParams): Promise<void> {
    if (path === AUTHORIZE_PATH) {
      if (req.method === 'GET') return this.authorize(res, query, false);
      const form = await readForm(req);
      if (!form) return errorPage(res, 'LinkedIn', 'The consent form must be posted as application/x-www-form-urlencoded.');
      return this.authorize(res, form, true);
    }
    const caller = this.caller(req, res);
    if (!caller) return;
    if (path === '/v2/userinfo') {
      const [givenName, ...family] = caller.identity.name.split(' ');
      return sendJson(res, 200, { sub: caller.identity.id, name: caller.identity.name, given_name: givenName, family_name: family.join(' '), locale: { country: 'US', language: 'en' } });
    }
    if (!this.versioned(req, res)) return;
    if (caller.scopes !== null && !caller.scopes.includes('r_organization_admin') && !caller.scopes.includes('rw_organization_admin')) {
      return sendJson(res, 403, { status: 403, serviceErrorCode: 100, code: 'ACCESS_DENIED', message: 'Not enough permissions to access: organizationAcls' });
    }
    if (path === '/rest/organizationAcls') {
      if (query.get('q') !== 'roleAssignee') return sendJson(res, 400, { status: 400, code: 'ILLEGAL_ARGUMENT', message: 'q must be roleAssignee' });
      const role = query.get('role');
      const elements = LINKEDIN_SANDBOX_ORGANIZATIONS.filter((org) => org.administrators.includes(caller.identity.id) && (role === null || role === 'ADMINISTRATOR')).map((org) => ({
        role: 'ADMINISTRATOR',
        roleAssignee: `urn:li:person:${caller.identity.id}`,
        organization: `urn:li:organization:${org.id}`,
        state: 'APPROVED',
      }));
      return sendJson(res, 200, { paging: { count: 10, start: 0, links: [] }, elements });
    }
    const id = path.slice('/rest/organizations/'.length);
    const org = LINKEDIN_SANDBOX_ORGANIZATIONS.find((candidate) => candidate.id === id && candidate.administrators.includes(caller.identity.id));
    if (!org) return sendJson(res, 404, { status: 404, message: `Organization ${id} not found` });
    return sendJson(res, 200, { id: Number(org.id), localizedName: org.name, vanityName: org.vanityName });
  }

  private authorize(res: ServerResponse, params: URLSearchParams, decided: boolean): void {
    const request = readAuthorizeRequest(params);
    if (request.clientId !== this.app.clientId) return errorPage(res, 'LinkedIn', 'The application (client_id) is not known.');
    if (!redirectUriAllowed(this.app, request.redirectUri)) return errorPage(res, 'LinkedIn', 'The redirect_uri does not match the registered value.');
    if (params.get('response_type') !== 'code' || request.state === '') {
      return redirectTo(res, request.redirectUri, { error: 'invalid_request', error_description: 'response_type=code and state are required', state: request.state });
    }
    const scopes = request.scope.split(' ').filter((scope) => scope !== '');
    if (scopes.length === 0 || scopes.some((scope) => !KNOWN_SCOPES.has(scope))) {
      return redirectTo(res, request.redirectUri, { error: 'invalid_scope', error_description: 'Scope not authorized for this application', state: request.state });
    }
    if (!decided) {
      const pages = scopes.includes('r_organization_admin');
      const choices = this.identities.list().map((member) => {
        const orgs = LINKEDIN_SANDBOX_ORGANIZATIONS.filter((org) => org.administrators.includes(member.id)).map((org) => org.name);
        return { value: member.id, label: pages && orgs.length > 0 ? `${member.name} (administers ${orgs.join(', ')})` : member.name };
      });
      return sendHtml(res, 200, consentPage({ platformName: 'LinkedIn', appName: 'Social Publishing (sandbox app)', action: `${this.baseUrl()}${AUTHORIZE_PATH}`, request, scopes, choices }));
    }
    if (params.get('decision') !== 'allow') {
      return redirectTo(res, request.redirectUri, { error: 'access_denied', error_description: 'The user cancelled the authorization', state: request.state });
    }
    const member = this.identities.get(params.get('identity') ?? '');
    if (!member) return errorPage(res, 'LinkedIn', 'Pick a member to sign in as.');
    const code = this.identities.issueCode(
      { clientId: request.clientId, redirectUri: request.redirectUri, scopes, subject: member.id, codeChallenge: null },
      CODE_LIFETIME_MS,
    );
    return redirectTo(res, request.redirectUri, { code, state: request.state });
  }

  /** The authorization-code grant; linkedin.ts has already checked client_id/client_secret. */
  exchange(form: URLSearchParams, clientId: string): { status: number; body: unknown } {
    const code = this.identities.takeCode(form.get('code') ?? '');
    if (!code || code.clientId !== clientId || code.redirectUri !== form.get('redirect_uri')) {
      return { status: 400, body: { error: 'invalid_request', error_description: 'Unable to retrieve access token: authorization code not found' } };
    }
    const issued = issueSandboxTokens(code.subject, 'linkedin', new Date());
    this.grantedScopes.set(issued.accessToken, code.scopes);
    // The sandbox app is treated as an approved partner app, so it also gets a refresh token.
    return {
      status: 200,
      body: {
        access_token: issued.accessToken,
        expires_in: 5_184_000,
        refresh_token: issued.refreshToken,
        refresh_token_expires_in: 31_536_000,
        scope: code.scopes.join(','),
        token_type: 'Bearer',
      },
    };
  }

  private caller(req: IncomingMessage, res: ServerResponse): { identity: SandboxIdentity; scopes: string[] | null } | null {
    const match = /^Bearer (\S+)$/.exec(String(req.headers.authorization ?? ''));
    const token = match?.[1] ?? '';
    const parsed = parseSandboxToken(token);
    const identity = parsed?.kind === 'access' ? this.identities.get(parsed.accountId) : undefined;
    if (!identity || identity.behaviour === 'expired') {
      sendJson(res, 401, { status: 401, serviceErrorCode: 65600, code: 'INVALID_ACCESS_TOKEN', message: 'Invalid access token' });
      return null;
    }
    return { identity, scopes: this.grantedScopes.get(token) ?? null };
  }

  private versioned(req: IncomingMessage, res: ServerResponse): boolean {
    const version = req.headers['linkedin-version'];
    if (typeof version !== 'string' || !/^\d{6}(\.\d{2})?$/.test(version)) {
      sendJson(res, 400, { status: 400, code: 'VERSION_MISSING', message: 'A version must be present. Please specify a version by adding the LinkedIn-Version header.' });
      return false;
    }
    const inactive = inactiveVersionAnswer(version, new Date());
    if (inactive) {
      sendJson(res, 426, inactive);
      return false;
    }
    if (req.headers['x-restli-protocol-version'] !== '2.0.0') {
      sendJson(res, 400, { status: 400, code: 'ILLEGAL_ARGUMENT', message: 'X-Restli-Protocol-Version 2.0.0 is required for this API.' });
      return false;
    }
    return true;
  }
}
