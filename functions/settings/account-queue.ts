/** GET /settings/accounts/{id}/queue: an account's time zone and posting times, with the form that sets them. */
import { queuePageRoute } from '../../lib/web/queue-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(queuePageRoute);
