/** GET /settings/accounts - connected accounts per workspace, with connect, reconnect and disconnect. */
import { accountsRoute, accountsPageOptions } from '../../lib/web/connect-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(accountsRoute, accountsPageOptions);
