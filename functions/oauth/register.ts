/** POST /oauth/register: dynamic client registration (RFC 7591) of a public assistant client. */
import { clientDirectory } from '../../lib/oauth/oauth-dependencies.js';
import { jsonBody, oauthJsonHandler } from '../../lib/oauth/oauth-http.js';

export const handler = oauthJsonHandler(async (event) => ({ status: 201, body: await clientDirectory().register(jsonBody(event)) }), { counted: true });
