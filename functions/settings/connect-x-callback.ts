/** GET /settings/connect/x/callback: where X sends the person back (the redirect URI registered with the app). */
import { connectCallbackRoute } from '../../lib/web/connect-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(connectCallbackRoute('x'));
