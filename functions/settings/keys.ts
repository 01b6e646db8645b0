/** GET /settings/keys: the user's API keys (public id, created, last used, status) and the create form. */
import { ApiKeyLimitError } from '../../lib/use-cases/settings/api-keys.js';
import { keysPage } from '../../lib/web/pages/keys-page.js';
import { manageApiKeys } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const revoked = request.query.revoked;
  const notice = revoked && /^[0-9A-Za-z]{16}$/.test(revoked) ? `Key ak_${revoked}_… is revoked.` : undefined;
  // A create refused at the cap comes back here (functions/settings/create-key.ts).
  const error = request.query.error === 'limit' ? new ApiKeyLimitError().message : undefined;
  return { kind: 'page', title: 'API keys', body: keysPage(await manageApiKeys().list(signedIn.caller), signedIn.session.csrfToken, notice, error) };
});
