/**
 * Rate limits (decisions.md, Rate limits). Two steps:
 *
 * - `countRequest` (before the route): a verified caller is counted against its key (per minute
 *   and per day); a request that failed authentication (or that needs none: the unknown-route
 *   handler) is counted against the client address, so key guessing is throttled too. When the
 *   bucket is over its limit the answer is 429 - for a failed authentication that means 429
 *   instead of 401 once the address has failed 120 times in the minute: the guesser learns
 *   nothing more until the window resets. Otherwise the authentication failure is raised now.
 * - `rateLimitHeaders` (outermost step): X-RateLimit-Limit/Remaining/Reset (and Retry-After on a
 *   429) on every response, success or error, 500s included.
 */
import { ApiError } from '../domain/errors.js';
import { rateLimitHeaderValues, unknownDecision } from '../domain/rate-windows.js';
import type { Clock, RateBucket, RateLimiter } from '../ports.js';
import { withHeaders } from './json-response.js';
import type { HttpMiddleware, HttpMiddyRequest } from './pipeline-state.js';
import { findPipelineState, pipelineState } from './pipeline-state.js';

export function countRequest(limiter: RateLimiter, clock: Clock): HttpMiddleware {
  return {
    name: 'countRequest',
    before: async (request) => {
      const state = pipelineState(request);
      const bucket: RateBucket = state.caller
        ? { kind: 'key', keyId: state.caller.keyId }
        : { kind: 'address', address: state.request.sourceIp };
      const decision = await limiter.hit(bucket, clock.now());
      state.rateDecision = decision;
      if (decision.code === 'rate_limit_daily') {
        throw new ApiError('rate_limit_daily', 'Daily request limit reached for this API key. Retry after the time in Retry-After.');
      }
      if (decision.code === 'rate_limit_burst') {
        throw new ApiError('rate_limit_burst', 'Too many requests in this minute. Retry after the time in Retry-After.');
      }
      if (state.authFailure) throw state.authFailure;
    },
  };
}

export function rateLimitHeaders(perMinute: number, clock: Clock): HttpMiddleware {
  const addHeaders = (request: HttpMiddyRequest): void => {
    if (!request.response) return;
    const decision = findPipelineState(request.event)?.rateDecision ?? unknownDecision(clock.now(), perMinute);
    request.response = withHeaders(request.response, rateLimitHeaderValues(decision));
  };
  return { name: 'rateLimitHeaders', after: addHeaders, onError: addHeaders };
}
