/** POST /oauth/token: authorization code (with PKCE) and refresh token (rotated) grants. */
import { tokenService } from '../../lib/oauth/oauth-dependencies.js';
import { formBody, oauthJsonHandler } from '../../lib/oauth/oauth-http.js';

export const handler = oauthJsonHandler(async (event) => ({ status: 200, body: await tokenService().exchange(formBody(event)) }), { counted: true });
