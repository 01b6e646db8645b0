/** GET /settings/assistants: how to add an assistant (the MCP URL), and every assistant the person allowed, with what it may do and a revoke button. */
import { grantStore } from '../../lib/oauth/oauth-dependencies.js';
import { assistantsPage } from '../../lib/web/pages/assistants-page.js';
import { serviceAddresses } from '../../lib/web/pages/get-started.js';
import { webSettings } from '../../lib/web/web-dependencies.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(async (request, signedIn) => {
  const notice = request.query.revoked === '1' ? 'Access revoked: that assistant can no longer use your account.' : undefined;
  return { kind: 'page', title: 'Assistants', body: assistantsPage(await grantStore().listGrants(signedIn.user.id), signedIn.session.csrfToken, notice, serviceAddresses(webSettings().origin).mcpUrl) };
});
