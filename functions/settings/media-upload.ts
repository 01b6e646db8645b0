/** POST /settings/media/upload - a presigned POST for one file of the chosen type, as a form to the media bucket. */
import { prepareUploadRoute, uploadFormOptions } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';

export const handler = signedInHandler(prepareUploadRoute, uploadFormOptions);
