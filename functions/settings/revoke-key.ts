/** POST /settings/keys/{id}/revoke: revokes the caller's own key; another user's key id is a 404. */
import { manageApiKeys, orNotFound } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const keyId = request.pathParameters.id ?? '';
  await orNotFound('API key', () => manageApiKeys().revoke(signedIn.caller, keyId));
  return { kind: 'redirect', location: `/settings/keys?revoked=${encodeURIComponent(keyId)}` };
});
