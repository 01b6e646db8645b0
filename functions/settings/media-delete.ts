/**
 * POST /settings/media/delete - deletes a file (objects and item) through the same use case as
 * DELETE /api/v1/media/{id}: refused (media_in_use) while a draft or scheduled post uses it.
 */
import { DynamoDbPostStore } from '../../lib/store/dynamodb-post-store.js';
import type { MediaFiles } from '../../lib/use-cases/media-files.js';
import { deleteMediaRoute } from '../../lib/web/media-routes.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { mediaBucketAccess, mediaFiles } from '../media/wiring.js';

let media: MediaFiles | undefined;

export const handler = signedInHandler((request, signedIn) => deleteMediaRoute((media ??= mediaFiles({ storage: mediaBucketAccess(), posts: new DynamoDbPostStore() })))(request, signedIn));
