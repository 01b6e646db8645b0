/**
 * POST /api/v1/posts/{id}/retry (scope `publish`): a failed post whose error is retryable goes out
 * again under the same id, spending no new unit. Wired with publish's adapters
 * (functions/post-changes/wiring.ts).
 */
import { RetryPost } from '../lib/use-cases/retry-post.js';
import { sendPostApiHandler } from './post-changes/api-handler.js';

export const handler = sendPostApiHandler((deps) => new RetryPost(deps));
