/**
 * Signing in to settings through OpenID Connect, and out again.
 *
 * start     a sign-in transaction (state, nonce, PKCE verifier) stored server-side under the hash
 *           of a random id that goes in a short-lived cookie; the browser goes to the provider.
 * complete  the callback: the transaction is taken (read and deleted at once, so it works once),
 *           the code exchanged and every check made (lib/web/oidc-relying-party.ts); the identity
 *           (issuer + sub) finds its user, or its first sign-in creates the user on the free plan
 *           with a first workspace; a NEW random session id is issued (never one the browser
 *           brought, so a planted cookie cannot become a session).
 * signOut   deletes the server-side session (the cookie is worthless from then on) and sends the
 *           browser through the provider's logout, so the provider's session ends too.
 */
import { hashCookieSecret, newCookieSecret, newCsrfToken } from '../../domain/session-secret.js';
import type { User, Workspace } from '../../domain/model.js';
import { newId } from '../../domain/ids.js';
import { SESSION_SECONDS, sessionTimesAt } from '../../domain/session-rules.js';
import type { Clock } from '../ports/clock.js';
import type { IdentityStore, OidcRelyingParty, SessionStore } from './ports.js';

/** A session ends this long after sign-in, however active (absolute); it also ends after 30 idle minutes. */
export { SESSION_SECONDS };
/** Time a person has at the provider (sign-up with e-mail verification included) to come back. */
export const LOGIN_SECONDS = 30 * 60;
export const FIRST_WORKSPACE_NAME = 'My workspace';
/** The free plan's monthly allowance: the configuration (FREE_PLAN_MONTHLY_POSTS) both the CDK app and the local stack set. */
export const FREE_PLAN_MONTHLY_POSTS = 100;

export class SignInExpiredError extends Error {
  readonly code = 'sign_in_expired';
  constructor() {
    super('The sign-in expired or was already used');
    this.name = 'SignInExpiredError';
  }
}

export interface SignInDeps {
  sessions: SessionStore;
  relyingParty: OidcRelyingParty;
  clock: Clock;
  /** Only the callback needs these: built on first use, so sign-in and sign-out need no more configuration than they use. */
  identities: () => IdentityStore;
  /** The free plan's monthly allowance, from configuration. */
  freePlanMonthlyPosts: () => number;
}

export class SignIn {
  constructor(private readonly deps: SignInDeps) {}

  async start(returnTo: string): Promise<{ loginSecret: string; authorizationUrl: string; maxAgeSeconds: number }> {
    const checks = this.deps.relyingParty.newChecks();
    const authorizationUrl = await this.deps.relyingParty.authorizationUrl(checks);
    const loginSecret = newCookieSecret();
    const expiresAt = new Date(this.deps.clock.now().getTime() + LOGIN_SECONDS * 1000);
    await this.deps.sessions.putLogin(hashCookieSecret(loginSecret), { ...checks, returnTo, expiresAt });
    return { loginSecret, authorizationUrl, maxAgeSeconds: LOGIN_SECONDS };
  }

  async complete(loginSecret: string | null, callbackUrl: URL): Promise<{ sessionSecret: string; returnTo: string; maxAgeSeconds: number }> {
    const login = loginSecret === null ? null : await this.deps.sessions.takeLogin(hashCookieSecret(loginSecret), this.deps.clock.now());
    if (!login) throw new SignInExpiredError();
    const identity = await this.deps.relyingParty.exchange(callbackUrl, login);
    const userId = (await this.deps.identities().findUserId(identity)) ?? (await this.createUser(identity.email, identity));
    const sessionSecret = newCookieSecret();
    const now = this.deps.clock.now();
    await this.deps.sessions.putSession(hashCookieSecret(sessionSecret), {
      userId,
      csrfToken: newCsrfToken(),
      createdAt: now.toISOString(),
      ...sessionTimesAt(now),
    });
    return { sessionSecret, returnTo: login.returnTo, maxAgeSeconds: SESSION_SECONDS };
  }

  /**
   * Ends our session, and answers where the browser goes next: the provider's logout, which ends
   * its own session too (Cognito's managed-login cookie would otherwise sign the next person at
   * this browser straight back in) and sends the browser back to settings, signed out.
   */
  async signOut(sessionKey: string): Promise<{ providerLogoutUrl: string }> {
    await this.deps.sessions.deleteSession(sessionKey);
    return { providerLogoutUrl: this.deps.relyingParty.logoutUrl() };
  }

  /**
   * Signs the user out of every other browser, keeping this session (after a password change at
   * the provider, or a browser left signed in elsewhere). The number of sessions ended.
   */
  async endOtherSessions(userId: string, sessionKey: string): Promise<number> {
    return this.deps.sessions.deleteOtherSessions(userId, sessionKey);
  }

  /** The free plan: an active subscription with the configured allowance, and a first workspace. */
  private async createUser(email: string, identity: Parameters<IdentityStore['createUser']>[0]): Promise<string> {
    const createdAt = this.deps.clock.now().toISOString();
    const user: User = {
      id: newId('usr'),
      email: email.trim().slice(0, 254),
      active: true,
      monthlyPostAllowance: this.deps.freePlanMonthlyPosts(),
      workspaceIds: [],
      createdAt,
    };
    const workspace: Workspace = { id: newId('ws'), userId: user.id, name: FIRST_WORKSPACE_NAME, createdAt };
    return this.deps.identities().createUser(identity, { user: { ...user, workspaceIds: [workspace.id] }, workspace });
  }
}
