/**
 * POST /api/v1/posts/{id}/publish (scope `publish`): a draft goes out now or at scheduledFor,
 * spending one allowance unit. Wired with retry's adapters (functions/post-changes/wiring.ts).
 */
import { DynamoDbQueueStore } from '../lib/store/dynamodb-queue-store.js';
import { PublishDraft } from '../lib/use-cases/publish-draft.js';
import { sendPostApiHandler } from './post-changes/api-handler.js';

// The queue store for `queue: true` (a retry takes no slot, so RetryPost goes without).
export const handler = sendPostApiHandler((deps) => new PublishDraft({ ...deps, queues: new DynamoDbQueueStore() }));
