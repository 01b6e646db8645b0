/**
 * The settings routes of connecting accounts, shared by their one-per-route handler modules in
 * functions/settings/: parse the form or the callback, call one use case, answer with a page or a
 * redirect. A ConnectError becomes a 400 page with its message and a way back; never a 5xx.
 */
import { ConnectError } from '../domain/connect-errors.js';
import type { PublishablePlatform } from '../domain/model.js';
import { CONNECT_KINDS, type ConnectKind } from '../use-cases/ports/connect.js';
import type { SettingsPrincipal } from '../use-cases/settings/connect-account.js';
import { connectAccountUseCase, connectFormActionOrigins, listConnectedAccounts } from './connect-dependencies.js';
import { html } from './html.js';
import { ACCOUNTS_NOTICES, accountsPage } from './pages/accounts-page.js';
import { badRequest } from './web-errors.js';
import type { SignedIn, WebRequest, WebResult } from './web-request.js';
import type { WebHandlerOptions } from './web-handler.js';

function principal(signedIn: SignedIn): SettingsPrincipal {
  return { userId: signedIn.user.id, sessionId: signedIn.sessionKey };
}

function connectFailed(error: ConnectError): WebResult {
  return {
    kind: 'page',
    status: 400,
    title: 'Account not connected',
    body: html`<p class="notice error" role="alert">${error.message}</p><p><a class="button" href="/settings/accounts">Back to connected accounts</a></p>`,
  };
}

async function orConnectError(run: () => Promise<WebResult>): Promise<WebResult> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof ConnectError) return connectFailed(error);
    throw error;
  }
}

/** The accounts page's forms redirect to the platforms' sign-in pages: form-action must allow them. */
export const accountsPageOptions: WebHandlerOptions = {
  csp: {
    get formActionOrigins() {
      return connectFormActionOrigins();
    },
  },
};

export async function accountsRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  const workspaces = await listConnectedAccounts().execute(signedIn.user.id);
  const notice = ACCOUNTS_NOTICES[request.query.notice ?? ''] ?? null;
  return { kind: 'page', title: 'Connected accounts', body: accountsPage({ workspaces, csrfToken: signedIn.session.csrfToken, notice }) };
}

export async function startConnectRoute(request: WebRequest, signedIn: SignedIn): Promise<WebResult> {
  const kind = request.form.kind ?? '';
  if (!(CONNECT_KINDS as readonly string[]).includes(kind)) throw badRequest('Choose X, a LinkedIn member or LinkedIn pages to connect.');
  const accountId = request.form.accountId;
  const workspaceId = request.form.workspaceId;
  return orConnectError(async () => {
    const { authorizeUrl } = await connectAccountUseCase().start(principal(signedIn), {
      kind: kind as ConnectKind,
      ...(accountId ? { reconnectAccountId: accountId } : { workspaceId: workspaceId ?? '' }),
    });
    return { kind: 'redirect', location: authorizeUrl };
  });
}

export function connectCallbackRoute(platform: PublishablePlatform) {
  return async (request: WebRequest, signedIn: SignedIn): Promise<WebResult> =>
    orConnectError(async () => {
      const result = await connectAccountUseCase().finish(principal(signedIn), platform, {
        state: request.query.state,
        code: request.query.code,
        error: request.query.error,
        errorDescription: request.query.error_description,
      });
      const notice = result.reconnected ? (result.accounts.length === 1 ? 'reconnected' : 'updated') : result.accounts.length > 1 ? 'connected_pages' : 'connected';
      return { kind: 'redirect', location: `/settings/accounts?notice=${notice}` };
    });
}
