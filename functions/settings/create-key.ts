/**
 * POST /settings/keys: creates a key with all four scopes and shows it once, in this response's
 * page only (never in a URL or a redirect; every settings page is no-store), with a curl line
 * that uses it, the API base URL and the reference.
 */
import { serviceAddresses } from '../../lib/web/pages/get-started.js';
import { newKeyPage } from '../../lib/web/pages/keys-page.js';
import { manageApiKeys } from '../../lib/web/settings-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (_request, signedIn) => {
  const created = await manageApiKeys().create(signedIn.caller);
  return { kind: 'page', status: 201, title: 'Your new API key', body: newKeyPage(created, serviceAddresses(webSettings().origin)) };
});
