/**
 * POST /settings/posts/{id}/retry: Retry on a failed post whose error is retryable: it goes out
 * again now under the same id through the API's own retry use case (as POST
 * /api/v1/posts/{id}/retry), spending no new unit; refusals are pages (functions/post-changes/wiring.ts).
 */
import { RetryPost } from '../../lib/use-cases/retry-post.js';
import { sendPostSettingsHandler } from '../post-changes/settings-handler.js';

export const handler = sendPostSettingsHandler((deps) => new RetryPost(deps), 'retried');
