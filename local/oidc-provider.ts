/**
 * The local stack's OpenID provider, standing in for the Cognito user pool of AWS: the
 * `oidc-provider` package (a certified OpenID Provider) with sign-up and sign-in pages of its own,
 * so the settings app signs in locally through exactly the code path it uses on AWS (discovery,
 * authorization code + PKCE, ID token checks). Nothing about the user is faked on our side.
 *
 * - One client: the settings app, public (PKCE, no secret), its redirect URI registered.
 * - Accounts: e-mail + password in DATA_DIR (local/oidc-accounts.ts: scrypt, failures limited).
 * - Every sign-in asks for the password (the login prompt is always requested), so signing out
 *   of settings and in again can switch person, as a shared machine needs.
 * - Sign-out answers Cognito's contract: GET /logout?client_id=&logout_uri= (a registered
 *   sign-out URL) ends this browser's provider session (the package's end-session endpoint,
 *   confirmed by itself) and sends the browser to logout_uri, as Cognito's /logout does.
 * - Signing keys are generated at each start; grants and sessions live in memory
 *   (local/oidc-memory-adapter.ts): a restart signs everyone out of the provider, not out of settings.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type * as OidcProviderExports from 'oidc-provider';
import type { Configuration, KoaContextWithOIDC } from 'oidc-provider';
import { listenOnLoopback } from './free-port.js';
import { memoryAdapter } from './oidc-memory-adapter.js';
import { AccountInputError, LocalAccounts, type LocalAccount } from './oidc-accounts.js';
import { interactionPage, type InteractionView } from './oidc-pages.js';

export const LOCAL_OIDC_CLIENT_ID = 'settings-local';
const MAX_FORM_BYTES = 8 * 1024;

export interface LocalOidcProviderOptions {
  /** oidc-accounts.json lives here. */
  accountsFile: string;
  redirectUris: string[];
  /** Where /logout may send the browser back to (Cognito's "allowed sign-out URLs"). */
  signedOutUris: string[];
  port?: number;
  log?: (message: string, error?: unknown) => void;
}

export interface LocalOidcProvider {
  /** `http://127.0.0.1:<port>`: OIDC_ISSUER_URL for the settings functions. */
  issuer: string;
  clientId: string;
  accounts: LocalAccounts;
  stop(): Promise<void>;
}

function readForm(request: IncomingMessage): Promise<URLSearchParams> {
  return new Promise((resolve, reject) => {
    let body = '';
    request.setEncoding('utf8');
    request.on('data', (chunk: string) => {
      body += chunk;
      if (body.length > MAX_FORM_BYTES) {
        reject(new AccountInputError('The form is too large.'));
        request.destroy();
      }
    });
    request.on('end', () => resolve(new URLSearchParams(body)));
    request.on('error', reject);
  });
}

function sendPage(response: ServerResponse, status: number, view: InteractionView, formTargets: string, iconOrigin: string | undefined): void {
  const body = interactionPage(view, iconOrigin);
  response.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'cache-control': 'no-store',
    // form-action also covers the redirects after a POST: the provider sends the browser back to the app.
    // img-src: the settings app's favicon.
    'content-security-policy': `default-src 'none'; style-src 'unsafe-inline'; img-src ${formTargets}; form-action 'self' ${formTargets}; frame-ancestors 'none'; base-uri 'none'`,
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  response.end(body);
}

type OidcProviderModule = typeof OidcProviderExports;

/** What oidc-provider prints when it is imported on a Node release older than 22 (it has no switch for it). */
const UNSUPPORTED_RUNTIME_NOTICE = 'oidc-provider WARNING: Unsupported runtime.';
let loadingProvider: Promise<OidcProviderModule> | undefined;

/**
 * oidc-provider, imported without its "Unsupported runtime. Use Node.js v22" notice: this is a
 * development stand-in for Cognito, and the stack supports Node 20 (package.json engines; the
 * provider's tests here pass on it). The notice is a console.warn at import time with no
 * documented switch, so exactly that one line is held back, only while the module loads; any
 * other warning, from it or from anything else, still prints.
 */
function loadOidcProvider(): Promise<OidcProviderModule> {
  loadingProvider ??= (async () => {
    const warn = console.warn;
    console.warn = (...args: unknown[]) => {
      if (typeof args[0] === 'string' && args[0].includes(UNSUPPORTED_RUNTIME_NOTICE)) return;
      warn.apply(console, args);
    };
    try {
      return await import('oidc-provider');
    } finally {
      console.warn = warn;
    }
  })();
  return loadingProvider;
}

/** The login prompt is requested on every authorization, even with a provider session. */
function alwaysAskPolicy({ interactionPolicy }: OidcProviderModule): ReturnType<OidcProviderModule['interactionPolicy']['base']> {
  const policy = interactionPolicy.base();
  const login = policy.get('login');
  login?.checks.add(
    new interactionPolicy.Check('sign_in_each_time', 'settings asks for the password on every sign-in', (ctx) =>
      // Satisfied only by a sign-in made during this very authorization.
      ctx.oidc.result?.login ? interactionPolicy.Check.NO_NEED_TO_PROMPT : interactionPolicy.Check.REQUEST_PROMPT,
    ),
    0,
  );
  return policy;
}

export async function startLocalOidcProvider(options: LocalOidcProviderOptions): Promise<LocalOidcProvider> {
  const oidcProvider = await loadOidcProvider();
  const log = options.log ?? ((message: string, error?: unknown) => console.error(`[oidc] ${message}`, error ?? ''));
  const accounts = await LocalAccounts.open(options.accountsFile);
  // Set once the server listens (the issuer names its port); requests before that get 503.
  const ready: { provider?: InstanceType<OidcProviderModule['Provider']> } = {};
  const formTargets = [...new Set(options.redirectUris.map((uri) => new URL(uri).origin))].join(' ');
  const iconOrigin = options.redirectUris[0] ? new URL(options.redirectUris[0]).origin : undefined;
  const page = (response: ServerResponse, status: number, view: InteractionView): void => sendPage(response, status, view, formTargets, iconOrigin);

  async function interaction(request: IncomingMessage, response: ServerResponse, uid: string, action: string): Promise<void> {
    const provider = ready.provider;
    if (!provider) throw new Error('provider not ready');
    // Binds this page to the browser that started the sign-in (the provider's interaction cookie).
    const details = await provider.interactionDetails(request, response);
    if (details.uid !== uid) throw new AccountInputError('This sign-in page is out of date. Start again from the settings page.');
    const mode = action === 'sign-up' ? 'sign-up' : 'sign-in';
    if (request.method === 'GET') return page(response, 200, { uid, mode });
    if (request.method !== 'POST') return page(response, 405, { uid, mode, error: 'Method not allowed.' });
    const form = await readForm(request);
    const email = form.get('email') ?? '';
    const password = form.get('password') ?? '';
    let account: LocalAccount | null;
    try {
      if (mode === 'sign-up') {
        if (password !== (form.get('confirm') ?? '')) throw new AccountInputError('The two passwords differ.');
        account = await accounts.create(email, password);
      } else {
        account = await accounts.verify(email, password, request.socket.remoteAddress ?? 'unknown');
        if (!account) throw new AccountInputError('E-mail or password is wrong.');
      }
    } catch (error) {
      if (!(error instanceof AccountInputError)) throw error;
      return page(response, 400, { uid, mode, email, error: error.message });
    }
    await provider.interactionFinished(request, response, { login: { accountId: account.id } }, { mergeWithLastSubmission: false });
  }

  const server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0] ?? '/';
    const match = /^\/interaction\/([A-Za-z0-9_-]{1,64})(?:\/(sign-in|sign-up))?$/.exec(path);
    const provider = ready.provider;
    if (match && provider) {
      interaction(request, response, match[1] ?? '', match[2] ?? 'sign-in').catch((error: unknown) => {
        if (response.headersSent) return void response.end();
        if (error instanceof AccountInputError || (error as { name?: string }).name === 'SessionNotFound') {
          return page(response, 400, { uid: match[1] ?? '', mode: 'sign-in', error: 'This sign-in page has expired. Start again from the settings page.', expired: true });
        }
        log('interaction failed', error);
        page(response, 500, { uid: match[1] ?? '', mode: 'sign-in', error: 'Something went wrong.', expired: true });
      });
      return;
    }
    if (!provider) {
      response.writeHead(503).end();
      return;
    }
    if (path === '/logout' && request.method === 'GET') {
      // Cognito's /logout: client_id and a registered logout_uri, or an error page and no redirect.
      const query = new URL(request.url ?? '/', issuer).searchParams;
      const logoutUri = query.get('logout_uri') ?? '';
      if (query.get('client_id') !== LOCAL_OIDC_CLIENT_ID || !options.signedOutUris.includes(logoutUri)) {
        return page(response, 400, { uid: '', mode: 'sign-in', error: 'This sign-out request names an unknown client or sign-out URL.', expired: true });
      }
      const end = new URL('/session/end', issuer);
      end.searchParams.set('client_id', LOCAL_OIDC_CLIENT_ID);
      end.searchParams.set('post_logout_redirect_uri', logoutUri);
      response.writeHead(302, { location: end.href, 'cache-control': 'no-store' }).end();
      return;
    }
    provider.callback()(request, response);
  });
  const port = await listenOnLoopback(server, options.port ?? 0);
  const issuer = `http://127.0.0.1:${port}`;

  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const configuration: Configuration = {
    clients: [
      {
        client_id: LOCAL_OIDC_CLIENT_ID,
        redirect_uris: options.redirectUris,
        response_types: ['code'],
        grant_types: ['authorization_code'],
        token_endpoint_auth_method: 'none',
        post_logout_redirect_uris: options.signedOutUris,
      },
    ],
    pkce: { required: () => true },
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    // As Cognito does: the e-mail is in the ID token itself, not only at the userinfo endpoint.
    conformIdTokenClaims: false,
    findAccount: (_ctx: KoaContextWithOIDC, id: string) => {
      const account = accounts.byId(id);
      if (!account) return undefined;
      return { accountId: id, claims: () => ({ sub: id, email: account.email, email_verified: true }) };
    },
    interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}`, policy: alwaysAskPolicy(oidcProvider) },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: {
        enabled: true,
        // Cognito's /logout asks nothing: the package's confirmation form (its xsrf token bound to
        // this browser's session) is submitted at once, ending the whole provider session.
        logoutSource: (ctx, form) => {
          ctx.type = 'html';
          ctx.body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Signing out · Local sign-in</title></head><body>${form.replace('</form>', '<input type="hidden" name="logout" value="yes"><noscript><button type="submit">Sign out</button></noscript></form>')}<script>document.forms[0].submit()</script></body></html>`;
        },
      },
    },
    adapter: memoryAdapter(),
    // The settings app is first-party: no consent screen for the scopes it asks.
    loadExistingGrant: async (ctx) => {
      const client = ctx.oidc.client;
      const session = ctx.oidc.session;
      if (!client || !session?.accountId) return undefined;
      const existing = ctx.oidc.result?.consent?.grantId ?? session.grantIdFor(client.clientId);
      if (existing) {
        const found = await ctx.oidc.provider.Grant.find(existing);
        if (found) return found;
      }
      const grant = new ctx.oidc.provider.Grant({ clientId: client.clientId, accountId: session.accountId });
      grant.addOIDCScope('openid email');
      await grant.save();
      return grant;
    },
    jwks: { keys: [{ ...privateKey.export({ format: 'jwk' }), kid: `local-${randomBytes(4).toString('hex')}`, use: 'sig', alg: 'RS256' }] as never },
    cookies: { keys: [randomBytes(32).toString('base64url')] },
    ttl: { Interaction: 30 * 60, Session: 8 * 60 * 60, Grant: 8 * 60 * 60, AuthorizationCode: 60, IdToken: 60 * 60, AccessToken: 60 * 60 },
    renderError: (ctx, out) => {
      ctx.type = 'html';
      ctx.body = interactionPage({ uid: '', mode: 'sign-in', error: `${out.error}: ${out.error_description ?? ''}`, expired: true });
    },
  };
  const provider = new oidcProvider.Provider(issuer, configuration);
  ready.provider = provider;
  // Errors reach the browser through renderError; the log gets the server-side ones only.
  provider.on('server_error', (_ctx: unknown, error: unknown) => log('server error', error));

  return {
    issuer,
    clientId: LOCAL_OIDC_CLIENT_ID,
    accounts,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
