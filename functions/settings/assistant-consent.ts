/**
 * GET /settings/assistants/consent?request=<id>: what an assistant asks for, for the signed-in
 * person to allow (possibly less) or refuse. /oauth/authorize sends the browser here; the settings
 * pipeline signs the person in first and comes back.
 */
import { AuthorizationPageError } from '../../lib/oauth/errors.js';
import { authorizationFlow } from '../../lib/oauth/oauth-dependencies.js';
import { consentPage, formActionSource } from '../../lib/web/pages/assistants-page.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest } from '../../lib/web/web-errors.js';

export const handler = signedInHandler(async (request, signedIn) => {
  try {
    const pending = await authorizationFlow().show(request.query.request, signedIn.user.id);
    return {
      kind: 'page',
      title: `Allow ${pending.clientName}?`,
      body: consentPage(pending, signedIn.session.csrfToken),
      formActionOrigins: [formActionSource(pending.redirectUri)],
    };
  } catch (error) {
    if (error instanceof AuthorizationPageError) throw badRequest(error.message);
    throw error;
  }
});
