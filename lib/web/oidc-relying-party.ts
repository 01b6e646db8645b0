/**
 * The settings app as an OpenID Connect relying party (openid-client): authorization code flow
 * with PKCE (S256), state and nonce, as a public client (no secret to keep). One code path for
 * both places: the issuer is discovered from OIDC_ISSUER_URL (Cognito's user pool on AWS, the
 * local stack's oidc-provider locally). Plain http is allowed only for a loopback issuer (the
 * local provider); anything else must be https.
 */
import * as client from 'openid-client';
import { ENV, requireEnv } from '../config.js';
import type { AuthorizationChecks, OidcIdentity, OidcRelyingParty } from '../use-cases/settings/ports.js';
import { WebError } from './web-errors.js';

export const OIDC_SCOPE = 'openid email';
export const CALLBACK_PATH = '/settings/auth/callback';

function isLoopback(url: URL): boolean {
  return url.hostname === '127.0.0.1' || url.hostname === 'localhost' || url.hostname === '[::1]';
}

export class OpenIdClientRelyingParty implements OidcRelyingParty {
  private config: Promise<client.Configuration> | undefined;

  /** Settings are read on first use, each set by the function that needs it: sign-out reads only the logout ones. */
  constructor(
    private readonly settings: () => { issuerUrl: string; clientId: string; redirectUri: string },
    private readonly logout: () => { logoutUrl: string; clientId: string; signedOutUrl: string } = () => {
      throw new Error('No logout settings');
    },
  ) {}

  private get options(): { issuerUrl: string; clientId: string; redirectUri: string } {
    return this.settings();
  }

  private configuration(): Promise<client.Configuration> {
    if (!this.config) {
      const issuer = new URL(this.options.issuerUrl);
      const insecure = issuer.protocol === 'http:' && isLoopback(issuer);
      this.config = client
        .discovery(issuer, this.options.clientId, { token_endpoint_auth_method: 'none' }, client.None(), insecure ? { execute: [client.allowInsecureRequests] } : {})
        .catch((error: unknown) => {
          // Not cached: the provider may come up later (or a network blip passes).
          this.config = undefined;
          throw error;
        });
    }
    return this.config;
  }

  newChecks(): AuthorizationChecks {
    return { state: client.randomState(), nonce: client.randomNonce(), codeVerifier: client.randomPKCECodeVerifier() };
  }

  async authorizationUrl(checks: AuthorizationChecks): Promise<string> {
    const config = await this.configuration();
    const url = client.buildAuthorizationUrl(config, {
      redirect_uri: this.options.redirectUri,
      scope: OIDC_SCOPE,
      code_challenge: await client.calculatePKCECodeChallenge(checks.codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
      nonce: checks.nonce,
      // Always the password, even with a live provider session (OIDC Core 3.1.2.1; Cognito's
      // managed login and the local provider both honour it): whoever signs in at a shared browser
      // after a sign-out is asked who they are.
      prompt: 'login',
    });
    return url.href;
  }

  /**
   * Cognito's logout contract (its /logout endpoint: client_id and a logout_uri registered on the
   * app client), which the local provider's /logout answers the same way (local/oidc-provider.ts).
   * Cognito's discovery document names no end_session_endpoint, hence the configured URL.
   */
  logoutUrl(): string {
    const { logoutUrl, clientId, signedOutUrl } = this.logout();
    const url = new URL(logoutUrl);
    url.searchParams.set('client_id', clientId);
    url.searchParams.set('logout_uri', signedOutUrl);
    return url.href;
  }

  async exchange(callbackUrl: URL, checks: AuthorizationChecks): Promise<OidcIdentity> {
    const config = await this.configuration();
    let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
    try {
      tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        expectedNonce: checks.nonce,
        idTokenExpected: true,
      });
    } catch (error) {
      // The provider refused (access_denied), or a check failed: say so without echoing anything it sent.
      const code = (error as { code?: string; error?: string }).error ?? (error as { code?: string }).code ?? 'unknown';
      throw new WebError(400, 'sign_in_failed', `Sign-in did not complete (${String(code).slice(0, 60)}). Please try again.`);
    }
    const claims = tokens.claims();
    if (!claims) throw new WebError(400, 'sign_in_failed', 'Sign-in did not return an ID token. Please try again.');
    const email = typeof claims.email === 'string' ? claims.email : '';
    if (email === '' || claims.email_verified === false) {
      throw new WebError(400, 'email_unverified', 'Your sign-in has no verified e-mail address. Verify it with the sign-in provider, then sign in again.');
    }
    return { issuer: claims.iss, subject: claims.sub, email };
  }
}

let relyingParty: OpenIdClientRelyingParty | undefined;

/** Where the provider's logout sends the browser back (registered on the provider's client). */
export const SIGNED_OUT_PATH = '/settings';

export function oidcRelyingParty(origin: () => string): OpenIdClientRelyingParty {
  relyingParty ??= new OpenIdClientRelyingParty(
    () => ({
      issuerUrl: requireEnv(ENV.oidcIssuerUrl),
      clientId: requireEnv(ENV.oidcClientId),
      redirectUri: `${origin()}${CALLBACK_PATH}`,
    }),
    () => ({ logoutUrl: requireEnv(ENV.oidcLogoutUrl), clientId: requireEnv(ENV.oidcClientId), signedOutUrl: `${origin()}${SIGNED_OUT_PATH}` }),
  );
  return relyingParty;
}
