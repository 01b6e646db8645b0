/** GET /settings/keys/{id}/revoke: asks before revoking (the revoke itself is a POST with the CSRF token). */
import { revokeKeyPage } from '../../lib/web/pages/keys-page.js';
import { manageApiKeys, orNotFound } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const key = await orNotFound('API key', () => manageApiKeys().get(signedIn.caller, request.pathParameters.id ?? ''));
  if (key.revokedAt) return { kind: 'redirect', location: '/settings/keys' };
  return { kind: 'page', title: 'Revoke API key', body: revokeKeyPage(key, signedIn.session.csrfToken) };
});
