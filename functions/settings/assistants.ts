/** GET /settings/assistants: every assistant the person allowed, with what it may do and a revoke button. */
import { grantStore } from '../../lib/oauth/oauth-dependencies.js';
import { assistantsPage } from '../../lib/web/pages/assistants-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const notice = request.query.revoked === '1' ? 'Access revoked: that assistant can no longer use your account.' : undefined;
  return { kind: 'page', title: 'Assistants', body: assistantsPage(await grantStore().listGrants(signedIn.user.id), signedIn.session.csrfToken, notice) };
});
