/**
 * POST /settings/keys: creates a key with all four scopes and shows it once, in this response's
 * page only (never in a URL or a redirect; every settings page is no-store), with a curl line
 * that uses it, the API base URL and the reference. At the cap of active keys, back to the keys
 * page, which says why (it reads the keys' last use, which this function has no access to).
 */
import { ApiKeyLimitError } from '../../lib/use-cases/settings/api-keys.js';
import { serviceAddresses } from '../../lib/web/pages/get-started.js';
import { newKeyPage } from '../../lib/web/pages/keys-page.js';
import { manageApiKeys } from '../../lib/web/settings-dependencies.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (_request, signedIn) => {
  try {
    const created = await manageApiKeys().create(signedIn.caller);
    return { kind: 'page', status: 201, title: 'Your new API key', body: newKeyPage(created, serviceAddresses(webSettings().origin)) };
  } catch (error) {
    if (!(error instanceof ApiKeyLimitError)) throw error;
    return { kind: 'redirect', location: '/settings/keys?error=limit' };
  }
});
