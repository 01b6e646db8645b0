/** GET /settings/media - the media library: upload, files with thumbnails and URLs, delete. */
import { mediaRoute, mediaPageOptions } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(mediaRoute, mediaPageOptions);
