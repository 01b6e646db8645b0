/** POST /settings/media/alt-text - a file's alt text, through the same use case as PATCH /api/v1/media/{id}. */
import type { MediaFiles } from '../../lib/use-cases/media-files.js';
import { altTextRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { mediaFiles } from '../media/wiring.js';

let media: MediaFiles | undefined;

export const handler = signedInHandler((request, signedIn) => altTextRoute((media ??= mediaFiles({})))(request, signedIn));
