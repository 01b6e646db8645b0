/**
 * POST /settings/posts/{id}/metrics/refresh: the "Refresh metrics" button, through the API's own
 * RefreshPostMetrics use case (same scoping, same once-per-5-minutes rule), then back to the post's
 * metrics page saying what happened, a refusal included.
 */
import { ApiError } from '../../lib/domain/errors.js';
import { systemClock } from '../../lib/use-cases/ports/clock.js';
import { RefreshPostMetrics } from '../../lib/use-cases/post-metrics.js';
import { signedInHandler } from '../../lib/web/web-handler.js';
import { badRequest, notFound } from '../../lib/web/web-errors.js';
import { metricsCollection } from '../metrics/wiring.js';

let refresh: RefreshPostMetrics | undefined;

function build(): RefreshPostMetrics {
  return new RefreshPostMetrics({ clock: systemClock, collect: metricsCollection().collect });
}

export const handler = signedInHandler(async (request, signedIn) => {
  refresh ??= build();
  const postId = request.pathParameters.id ?? '';
  const page = `/settings/posts/${encodeURIComponent(postId)}/metrics`;
  try {
    await refresh.execute(signedIn.caller, postId);
  } catch (error) {
    if (!(error instanceof ApiError)) throw error;
    if (error.code === 'post_not_found') throw notFound('post');
    if (error.code === 'post_not_published') throw badRequest(error.message);
    // The refusals the page explains (its `refused` notices), with the API's Retry-After.
    if (error.code === 'metrics_refresh_too_soon' || error.code === 'metrics_unavailable') {
      const after = error.headers?.['Retry-After'];
      return { kind: 'redirect', location: `${page}?refused=${error.code === 'metrics_refresh_too_soon' ? 'too_soon' : 'unavailable'}${after ? `&after=${after}` : ''}` };
    }
    throw error;
  }
  return { kind: 'redirect', location: `${page}?done=refreshed` };
});
