/** POST /settings/media/register - checks an upload and adds it to the library. */
import { registerUploadRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(registerUploadRoute);
