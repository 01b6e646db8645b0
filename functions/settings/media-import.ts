/**
 * POST /settings/media/import - a file imported from a URL, through the same use case as POST
 * /api/v1/media with sourceUrl, under the form's idempotency key (lib/web/media-routes.ts).
 */
import type { MediaFiles } from '../../lib/use-cases/media-files.js';
import { importMediaRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { mediaFiles, mediaImportQueue } from '../media/wiring.js';

let media: MediaFiles | undefined;

export const handler = signedInHandler((request, signedIn) => importMediaRoute((media ??= mediaFiles({ importQueue: mediaImportQueue(), idempotency: true })))(request, signedIn));
