/** POST /settings/assistants/{id}/revoke: ends a grant at once (its tokens are refused from the next request on). */
import { grantStore } from '../../lib/oauth/oauth-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { notFound } from '../../lib/web/web-errors.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const grantId = request.pathParameters.id ?? '';
  const revoked = /^grt_[0-9A-Za-z]{20}$/.test(grantId) && (await grantStore().revokeGrant(signedIn.user.id, grantId, new Date()));
  // Another person's grant answers exactly like one that does not exist.
  if (!revoked) throw notFound('assistant');
  return { kind: 'redirect', location: '/settings/assistants?revoked=1' };
});
