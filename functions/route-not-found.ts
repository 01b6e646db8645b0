/**
 * API Gateway's $default route (DEFAULT_ROUTE in functions/catalogue.ts): a request no route takes
 * gets the contract's error shape instead of API Gateway's `{"message":"Not Found"}` - 404
 * route_not_found for an unknown path, 405 method_not_allowed (with Allow) for a known path asked
 * with another method.
 *
 * It reads no API key: it is counted against the client address bucket (and carries that
 * bucket's headers), so a scan of random paths costs one counter update per request and never a
 * key lookup, and a caller hammering unknown routes gets 429 like a key guesser.
 */
import { ApiError } from '../lib/domain/errors.js';
import { anonymousApiHandler } from '../lib/http/api-handler.js';
import { requestCounting } from '../lib/http/api-pipeline.js';
import { matchUnroutedRequest } from '../lib/http/route-match.js';
import { API_BASE_PATH, API_ROUTES } from './catalogue.js';

export const handler = anonymousApiHandler(() => ({
  pipeline: requestCounting(),
  route: async (request) => {
    const match = matchUnroutedRequest(API_ROUTES, API_BASE_PATH, request.path);
    // Echoed so the caller sees what arrived; cut short so a huge path does not make a huge body.
    const path = request.path.length > 200 ? `${request.path.slice(0, 200)}...` : request.path;
    if (match.kind === 'method_not_allowed') {
      throw new ApiError('method_not_allowed', `${request.method} is not allowed on ${path}. Allowed: ${match.allow.join(', ')}.`, {
        headers: { Allow: match.allow.join(', ') },
      });
    }
    throw new ApiError('route_not_found', `No route ${request.method} ${path}. Paths start with ${API_BASE_PATH}.`);
  },
}));
