/**
 * The sandbox platforms of the local stack and the tests: one node:http server on 127.0.0.1 that
 * serves X under /x and LinkedIn under /linkedin, so the adapters run unchanged against
 * `X_API_BASE_URL=<xBaseUrl>` and `LINKEDIN_API_BASE_URL=<linkedinBaseUrl>` (LinkedIn's OAuth
 * endpoint is served on the same base). With `journalDir`, the posts each platform holds are
 * recorded on disk and survive a restart or a kill (record.ts); without it (most tests) all state
 * is in memory. GET /sandbox/record shows, read-only, what each account has live and deleted.
 *
 * In-process here; local/sandbox/process.ts runs the same server as a child process of its own
 * (npm start), so it outlives nothing and dies with nothing but itself.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { listenOnLoopback } from '../free-port.js';
import type { XSubscription } from '../../lib/domain/model.js';
import type { AccountBehaviour } from './common.js';
import { LinkedinSandbox } from './linkedin.js';
import { LinkedinOAuthSandbox } from './linkedin-oauth.js';
import { answerRecord, PostJournal, RECORD_PATH } from './record.js';
import { XSandbox, type ClientCredentialsCheck } from './x.js';
import { XOAuthSandbox } from './x-oauth.js';

export type { SandboxFault, SandboxPost } from './common.js';
export { LinkedinSandbox } from './linkedin.js';
export { XSandbox } from './x.js';
export { XOAuthSandbox, X_SANDBOX_IDENTITIES } from './x-oauth.js';
export { LinkedinOAuthSandbox, LINKEDIN_SANDBOX_MEMBERS, LINKEDIN_SANDBOX_ORGANIZATIONS } from './linkedin-oauth.js';

/**
 * The OAuth client credentials the local stack gives the service (X_CLIENT_ID / X_CLIENT_SECRET,
 * LINKEDIN_CLIENT_ID / LINKEDIN_CLIENT_SECRET) and the sandbox checks on refresh.
 */
export const SANDBOX_CLIENT_CREDENTIALS = {
  x: { clientId: 'sandbox-x-client', clientSecret: 'sandbox-x-client-secret' },
  linkedin: { clientId: 'sandbox-linkedin-client', clientSecret: 'sandbox-linkedin-client-secret' },
} as const satisfies Record<'x' | 'linkedin', ClientCredentialsCheck>;

/** The same credentials as environment variables, ready to merge into the functions' env. */
export const SANDBOX_CLIENT_ENV = {
  X_CLIENT_ID: SANDBOX_CLIENT_CREDENTIALS.x.clientId,
  X_CLIENT_SECRET: SANDBOX_CLIENT_CREDENTIALS.x.clientSecret,
  LINKEDIN_CLIENT_ID: SANDBOX_CLIENT_CREDENTIALS.linkedin.clientId,
  LINKEDIN_CLIENT_SECRET: SANDBOX_CLIENT_CREDENTIALS.linkedin.clientSecret,
} as const;

export interface SandboxOptions {
  /** 0 picks a free port. */
  port: number;
  accountBehaviour: AccountBehaviour;
  /** X's `subscription_type` for an account (admin CLI `--x-subscription`); None when not given. */
  xSubscription?: (accountId: string) => Promise<XSubscription>;
  /** Client credentials accepted on refresh; SANDBOX_CLIENT_CREDENTIALS when not given. */
  clients?: { x: ClientCredentialsCheck; linkedin: ClientCredentialsCheck };
  /** X posts per account per 15 minutes before 429; unlimited when not set. */
  xCreateLimitPer15Minutes?: number;
  /** Media processing: polls that still answer "in progress" (default 1), X's check_after_secs (default 1). */
  processingPolls?: number;
  xCheckAfterSecs?: number;
  linkedinVideoPartBytes?: number;
  /** Redirect URIs the sandbox apps accept exactly; any loopback URL when not given. */
  redirectUris?: readonly string[];
  /** Records posts in <journalDir>/x.jsonl and linkedin.jsonl and reloads them at start. */
  journalDir?: string;
}

export interface SandboxPlatforms {
  /** `http://127.0.0.1:<port>`; GET <origin>/sandbox/record is the inspection endpoint. */
  origin: string;
  xBaseUrl: string;
  linkedinBaseUrl: string;
  x: XSandbox;
  linkedin: LinkedinSandbox;
  /** The consent flows (x-oauth.ts, linkedin-oauth.ts); tests change an identity's behaviour through them. */
  xOAuth: XOAuthSandbox;
  linkedinOAuth: LinkedinOAuthSandbox;
  stop(): Promise<void>;
}

export async function startSandboxPlatforms(options: SandboxOptions): Promise<SandboxPlatforms> {
  let origin = '';
  const clients = options.clients ?? SANDBOX_CLIENT_CREDENTIALS;
  const redirects = options.redirectUris ? { redirectUris: options.redirectUris } : {};
  // Consent-flow identities are ordinary accounts; an admin-CLI account answers what it was set to.
  const xSubscription = async (subject: string): Promise<XSubscription> =>
    xOAuth.identities.behaviourOf(subject) !== undefined ? 'None' : ((await options.xSubscription?.(subject)) ?? 'None');
  const xOAuth = new XOAuthSandbox({ clientId: clients.x.clientId, ...redirects }, () => `${origin}/x`, xSubscription);
  const linkedinOAuth = new LinkedinOAuthSandbox({ clientId: clients.linkedin.clientId, ...redirects }, () => `${origin}/linkedin`);
  // Tokens from the consent flow name a sandbox identity, whose behaviour the identity carries;
  // tokens from the admin CLI name an account, whose behaviour the account record carries.
  const behaviourOf = (oauth: XOAuthSandbox | LinkedinOAuthSandbox): AccountBehaviour => async (subject) =>
    oauth.identities.behaviourOf(subject) ?? options.accountBehaviour(subject);
  const journals =
    options.journalDir === undefined ? null : { x: PostJournal.open(options.journalDir, 'x'), linkedin: PostJournal.open(options.journalDir, 'linkedin') };
  const x = new XSandbox({
    ...(journals ? { journal: journals.x } : {}),
    accountBehaviour: behaviourOf(xOAuth),
    xSubscription,
    client: clients.x,
    authorizationCode: (form, clientId) => xOAuth.exchange(form, clientId),
    ...(options.xCreateLimitPer15Minutes !== undefined ? { createLimitPer15Minutes: options.xCreateLimitPer15Minutes } : {}),
    ...(options.processingPolls !== undefined ? { processingPolls: options.processingPolls } : {}),
    ...(options.xCheckAfterSecs !== undefined ? { checkAfterSecs: options.xCheckAfterSecs } : {}),
  });
  const linkedin = new LinkedinSandbox({
    ...(journals ? { journal: journals.linkedin } : {}),
    accountBehaviour: behaviourOf(linkedinOAuth),
    baseUrl: () => `${origin}/linkedin`,
    client: clients.linkedin,
    authorizationCode: (form, clientId) => linkedinOAuth.exchange(form, clientId),
    ...(options.processingPolls !== undefined ? { processingPolls: options.processingPolls } : {}),
    ...(options.linkedinVideoPartBytes !== undefined ? { videoPartBytes: options.linkedinVideoPartBytes } : {}),
  });

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname === RECORD_PATH) return answerRecord(res, req.method ?? 'GET', url.searchParams, { x, linkedin });
    const method = req.method ?? 'GET';
    if (url.pathname.startsWith('/x/') && xOAuth.serves(method, url.pathname.slice(2))) return xOAuth.handle(req, res, url.pathname.slice(2), url.searchParams);
    const linkedinPath = url.pathname.slice('/linkedin'.length);
    if (url.pathname.startsWith('/linkedin/') && linkedinOAuth.serves(method, linkedinPath)) return linkedinOAuth.handle(req, res, linkedinPath, url.searchParams);
    if (url.pathname.startsWith('/x/')) return x.handle(req, res, url.pathname.slice(2), url.searchParams);
    if (url.pathname.startsWith('/linkedin/')) return linkedin.handle(req, res, url.pathname.slice('/linkedin'.length), url.searchParams);
    res.writeHead(404, { 'Content-Type': 'application/json' });
    res.end(JSON.stringify({ message: `No sandbox platform at ${url.pathname}` }));
  };

  const sockets = new Set<Socket>();
  const server = createServer((req, res) => {
    route(req, res).catch((error: unknown) => {
      // The sandbox is a stand-in for the platforms, not part of the service: plain stderr.
      console.error('[sandbox] request failed:', error instanceof Error ? error.message : String(error));
      if (!res.headersSent) {
        res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(JSON.stringify({ status: 500, message: 'Internal sandbox error' }));
      } else {
        res.destroy();
      }
    });
  });
  // Longer than the client's idle keep-alive, so the server never closes a socket the client is
  // about to reuse (that race would look like a lost answer to the adapter).
  server.keepAliveTimeout = 65_000;
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });

  let port: number;
  try {
    port = await listenOnLoopback(server, options.port);
  } catch (error) {
    journals?.x.close();
    journals?.linkedin.close();
    throw error;
  }
  origin = `http://127.0.0.1:${port}`;

  return {
    origin,
    xBaseUrl: `${origin}/x`,
    linkedinBaseUrl: `${origin}/linkedin`,
    x,
    linkedin,
    xOAuth,
    linkedinOAuth,
    stop: async () => {
      for (const res of [...x.hanging, ...linkedin.hanging]) res.destroy();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      journals?.x.close();
      journals?.linkedin.close();
    },
  };
}
