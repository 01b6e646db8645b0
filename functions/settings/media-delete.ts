/** POST /settings/media/delete - deletes a file (object and item). */
import { deleteMediaRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(deleteMediaRoute);
