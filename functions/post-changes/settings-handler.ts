/** The settings page's Send now and Retry (functions/settings/send-post.ts, retry-post.ts). */
import { ApiError } from '../../lib/domain/errors.js';
import { WITHOUT_IDEMPOTENCY_KEYS } from '../../lib/use-cases/idempotent-request.js';
import type { SendPostDeps } from '../../lib/use-cases/publish-draft.js';
import { directoryTable, webClock } from '../../lib/web/web-dependencies.js';
import { badRequest, notFound } from '../../lib/web/web-errors.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { sendPostDeps, type SendsPost } from './wiring.js';

/**
 * The settings button: the post goes out now. A refusal (the allowance used up, a connection to
 * reconnect first, a second click: the post has moved on) is a page saying why; another user's
 * post id is a 404. No Idempotency-Key: a second click is refused by the change's own condition.
 */
export function sendPostSettingsHandler(build: (deps: SendPostDeps) => SendsPost, doneNotice: string) {
  let useCase: SendsPost | undefined;
  return signedInHandler(async (request, signedIn) => {
    useCase ??= build(sendPostDeps(directoryTable(), WITHOUT_IDEMPOTENCY_KEYS, webClock));
    try {
      await useCase.execute(signedIn.caller, request.pathParameters.id ?? '', null, undefined);
    } catch (error) {
      if (error instanceof ApiError && error.code === 'post_not_found') throw notFound('post');
      if (error instanceof ApiError && error.status < 500) throw badRequest(error.message);
      throw error;
    }
    return { kind: 'redirect', location: `/settings/posts?done=${doneNotice}` };
  });
}
