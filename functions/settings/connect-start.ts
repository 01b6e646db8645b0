/** POST /settings/accounts/connect - starts connecting (or reconnecting) an account and redirects to the platform. */
import { startConnectRoute } from '../../lib/web/connect-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(startConnectRoute);
