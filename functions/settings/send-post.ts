/**
 * POST /settings/posts/{id}/send: Send now on a draft: it goes out now through the API's own
 * publish use case (as POST /api/v1/posts/{id}/publish), spending one allowance unit; refusals are
 * pages (functions/post-changes/wiring.ts).
 */
import { PublishDraft } from '../../lib/use-cases/publish-draft.js';
import { sendPostSettingsHandler } from '../post-changes/settings-handler.js';

export const handler = sendPostSettingsHandler((deps) => new PublishDraft(deps), 'sent');
