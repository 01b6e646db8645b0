/**
 * POST /api/v1/posts/{id}/publish (scope `publish`): a draft goes out now or at scheduledFor,
 * spending one allowance unit. Wired with retry's adapters (functions/post-changes/wiring.ts).
 */
import { PublishDraft } from '../lib/use-cases/publish-draft.js';
import { sendPostApiHandler } from './post-changes/api-handler.js';

export const handler = sendPostApiHandler((deps) => new PublishDraft(deps));
