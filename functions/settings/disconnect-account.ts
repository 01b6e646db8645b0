/** POST /settings/accounts/disconnect - removes an account and its tokens. */
import { disconnectRoute } from '../../lib/web/connect-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(disconnectRoute);
