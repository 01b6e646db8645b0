/**
 * What the sandbox X and LinkedIn OAuth servers (x-oauth.ts, linkedin-oauth.ts) share: the fixed
 * sandbox identities a person can grant, the consent page, the one-time authorization codes, and
 * the per-identity behaviour.
 *
 * Tokens issued through the consent flow name the identity's platform user id where the admin
 * CLI's tokens name the account id (lib/domain/sandbox-tokens.ts): the sandbox cannot know the
 * service's account id at consent time, exactly as the real platforms cannot. So the `--sandbox`
 * behaviour of an account connected here comes from the identity that was picked (each identity
 * has a default; tests change it with setBehaviour), not from the account record.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHash, randomBytes } from 'node:crypto';
import type { SandboxBehaviour } from '../../lib/domain/model.js';
import { readBody } from './common.js';

export interface SandboxIdentity {
  /** The platform's user id (X numeric id, LinkedIn member `sub`); also the subject of its tokens. */
  id: string;
  name: string;
  /** X: username without @. LinkedIn: none (members have no public handle in the API). */
  username?: string;
  behaviour: SandboxBehaviour;
}

export interface IssuedCode {
  clientId: string;
  redirectUri: string;
  scopes: string[];
  subject: string;
  codeChallenge: string | null;
  expiresAt: number;
}

export interface AuthorizeRequest {
  clientId: string;
  redirectUri: string;
  scope: string;
  state: string;
  codeChallenge: string;
  codeChallengeMethod: string;
}

/** Client ids and redirect URIs the sandbox app registration accepts. */
export interface SandboxAppRegistration {
  clientId: string;
  /** Exact redirect URIs; when absent, any http(s) URL on 127.0.0.1 or localhost (the local stack picks free ports). */
  redirectUris?: readonly string[];
}

const MAX_FIELD = 2048;

export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

export function redirectUriAllowed(app: SandboxAppRegistration, redirectUri: string): boolean {
  if (app.redirectUris) return app.redirectUris.includes(redirectUri);
  try {
    const url = new URL(redirectUri);
    return (url.protocol === 'http:' || url.protocol === 'https:') && (url.hostname === '127.0.0.1' || url.hostname === 'localhost') && url.hash === '';
  } catch {
    return false;
  }
}

/** S256 of a PKCE verifier, base64url without padding (RFC 7636). */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier).digest('base64url');
}

/** The identities, their behaviour and the codes of one sandbox platform. */
export class IdentityBook {
  private readonly identities: Map<string, SandboxIdentity>;
  private readonly codes = new Map<string, IssuedCode>();

  constructor(identities: readonly SandboxIdentity[]) {
    this.identities = new Map(identities.map((identity) => [identity.id, { ...identity }]));
  }

  list(): SandboxIdentity[] {
    return [...this.identities.values()];
  }

  get(id: string): SandboxIdentity | undefined {
    return this.identities.get(id);
  }

  /** The behaviour of a token subject that is one of these identities; undefined for anything else. */
  behaviourOf(subject: string): SandboxBehaviour | undefined {
    return this.identities.get(subject)?.behaviour;
  }

  /** Tests: how the platform answers for an identity from now on (e.g. `expired` once access is revoked). */
  setBehaviour(id: string, behaviour: SandboxBehaviour): void {
    const identity = this.identities.get(id);
    if (!identity) throw new Error(`No sandbox identity ${id}`);
    identity.behaviour = behaviour;
  }

  issueCode(code: Omit<IssuedCode, 'expiresAt'>, lifetimeMs: number): string {
    const value = randomBytes(24).toString('base64url');
    this.codes.set(value, { ...code, expiresAt: Date.now() + lifetimeMs });
    return value;
  }

  /** Single use: a code is gone after its first exchange attempt, right or wrong. */
  takeCode(value: string): IssuedCode | null {
    const code = this.codes.get(value);
    if (!code) return null;
    this.codes.delete(value);
    return code.expiresAt > Date.now() ? code : null;
  }
}

export function readAuthorizeRequest(params: URLSearchParams): AuthorizeRequest {
  const field = (name: string): string => (params.get(name) ?? '').slice(0, MAX_FIELD);
  return {
    clientId: field('client_id'),
    redirectUri: field('redirect_uri'),
    scope: field('scope'),
    state: field('state'),
    codeChallenge: field('code_challenge'),
    codeChallengeMethod: field('code_challenge_method'),
  };
}

export async function readForm(req: IncomingMessage): Promise<URLSearchParams | null> {
  const raw = await readBody(req, 64 * 1024);
  if (!String(req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')) return null;
  return new URLSearchParams(raw.toString('utf8'));
}

export function redirectTo(res: ServerResponse, redirectUri: string, params: Record<string, string>): void {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  res.writeHead(302, { Location: url.toString(), 'Cache-Control': 'no-store' });
  res.end();
}

export function sendHtml(res: ServerResponse, status: number, html: string): void {
  res.writeHead(status, {
    'Content-Type': 'text/html; charset=utf-8',
    'Content-Length': String(Buffer.byteLength(html)),
    // No form-action: after the consent form, the browser follows a redirect to the app's own origin.
    'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
    'Cache-Control': 'no-store',
  });
  res.end(html);
}

export function errorPage(res: ServerResponse, platformName: string, message: string): void {
  sendHtml(
    res,
    400,
    `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(platformName)} (sandbox): error</title></head>` +
      `<body><h1>${escapeHtml(platformName)} sandbox</h1><p role="alert">${escapeHtml(message)}</p></body></html>`,
  );
}

export interface ConsentChoice {
  value: string;
  label: string;
}

/**
 * The consent page: which identity to grant, the scopes asked, Allow or Cancel. The request's
 * parameters travel in hidden fields and are checked again when the form comes back.
 */
export function consentPage(input: {
  platformName: string;
  appName: string;
  action: string;
  request: AuthorizeRequest;
  scopes: string[];
  choices: ConsentChoice[];
}): string {
  const hidden = Object.entries({
    client_id: input.request.clientId,
    redirect_uri: input.request.redirectUri,
    scope: input.request.scope,
    state: input.request.state,
    code_challenge: input.request.codeChallenge,
    code_challenge_method: input.request.codeChallengeMethod,
    response_type: 'code',
  })
    .map(([name, value]) => `<input type="hidden" name="${name}" value="${escapeHtml(value)}">`)
    .join('');
  const choices = input.choices
    .map(
      (choice, index) =>
        `<li><label><input type="radio" name="identity" value="${escapeHtml(choice.value)}"${index === 0 ? ' checked' : ''}> ${escapeHtml(choice.label)}</label></li>`,
    )
    .join('');
  const scopes = input.scopes.map((scope) => `<li><code>${escapeHtml(scope)}</code></li>`).join('');
  const name = escapeHtml(input.platformName);
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${name} (sandbox): authorize ${escapeHtml(input.appName)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:2rem auto;padding:0 1rem}fieldset{margin:1rem 0}li{list-style:none;margin:.3rem 0}button{font-size:1rem;padding:.5rem 1rem;margin-right:.5rem}</style></head>
<body><main><h1>${name} sandbox</h1>
<p><strong>${escapeHtml(input.appName)}</strong> wants to access your ${name} account.</p>
<form method="post" action="${escapeHtml(input.action)}">${hidden}
<fieldset><legend>Sign in as</legend><ul>${choices}</ul></fieldset>
<p>It asks for:</p><ul>${scopes}</ul>
<button type="submit" name="decision" value="allow">Authorize app</button>
<button type="submit" name="decision" value="deny">Cancel</button>
</form></main></body></html>`;
}
