/** GET /.well-known/oauth-protected-resource/mcp (and the root form): RFC 9728 metadata of the MCP server. */
import { protectedResourceMetadata } from '../../lib/oauth/metadata.js';
import { oauthUrls } from '../../lib/oauth/oauth-dependencies.js';
import { oauthJsonHandler } from '../../lib/oauth/oauth-http.js';

export const handler = oauthJsonHandler(async () => ({ status: 200, body: protectedResourceMetadata(oauthUrls()) }), { counted: false });
