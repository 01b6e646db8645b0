/**
 * POST /settings/assistants/consent: the person's answer (CSRF-checked by the settings pipeline,
 * and bound to the request by its form token); the browser goes back to the assistant with a code
 * for the scopes left ticked, or with access_denied.
 */
import { AuthorizationPageError } from '../../lib/oauth/errors.js';
import { authorizationFlow } from '../../lib/oauth/oauth-dependencies.js';
import { MCP_SCOPES } from '../../lib/oauth/scopes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest } from '../../lib/web/web-errors.js';

export const handler = signedInHandler(async (request, signedIn) => {
  try {
    const location = await authorizationFlow().answer({
      requestId: request.form.request,
      formToken: request.form.form_token,
      userId: signedIn.user.id,
      approve: request.form.decision === 'approve',
      scopes: MCP_SCOPES.filter((scope) => request.form[`scope_${scope}`] === 'on'),
    });
    return { kind: 'redirect', location };
  } catch (error) {
    if (error instanceof AuthorizationPageError) throw badRequest(error.message);
    throw error;
  }
});
