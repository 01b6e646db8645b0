/** POST /settings/accounts/{id}/queue: replaces an account's posting times through the API's PUT use case. */
import { saveQueueRoute } from '../../lib/web/queue-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(saveQueueRoute);
