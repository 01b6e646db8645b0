/** GET /.well-known/oauth-authorization-server: RFC 8414 metadata of the service's authorization server. */
import { authorizationServerMetadata } from '../../lib/oauth/metadata.js';
import { oauthUrls } from '../../lib/oauth/oauth-dependencies.js';
import { oauthJsonHandler } from '../../lib/oauth/oauth-http.js';

export const handler = oauthJsonHandler(async () => ({ status: 200, body: authorizationServerMetadata(oauthUrls()) }), { counted: false });
