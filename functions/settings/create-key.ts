/**
 * POST /settings/keys: creates a key with all four scopes and shows it once, in this response's
 * page only (never in a URL or a redirect; every settings page is no-store).
 */
import { newKeyPage } from '../../lib/web/pages/keys-page.js';
import { manageApiKeys } from '../../lib/web/settings-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (_request, signedIn) => {
  const created = await manageApiKeys().create(signedIn.caller);
  return { kind: 'page', status: 201, title: 'Your new API key', body: newKeyPage(created) };
});
