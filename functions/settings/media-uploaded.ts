/** GET /settings/media/uploaded - where the media bucket sends the browser after an upload. */
import { uploadedRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(uploadedRoute);
