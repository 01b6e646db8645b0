/** GET /settings/accounts/{id}/disconnect: asks before disconnecting (the disconnect itself is a POST with the CSRF token). */
import { disconnectPage } from '../../lib/web/pages/workspaces-page.js';
import { manageWorkspaces, orNotFound } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const account = await orNotFound('account', () => manageWorkspaces().account(signedIn.caller, request.pathParameters.id ?? ''));
  return { kind: 'page', title: 'Disconnect account', body: disconnectPage(account, signedIn.session.csrfToken) };
});
