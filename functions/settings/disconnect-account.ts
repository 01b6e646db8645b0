/** POST /settings/accounts/{id}/disconnect: deletes the caller's own account and its tokens; another user's id is a 404. */
import { manageWorkspaces, orNotFound } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  await orNotFound('account', () => manageWorkspaces().disconnect(signedIn.caller, request.pathParameters.id ?? ''));
  return { kind: 'redirect', location: '/settings/accounts?notice=disconnected' };
});
