/**
 * Rate limits (decisions.md, Rate limits). Two steps:
 *
 * - `countRequest`: a verified caller is counted against its key (per minute and per day); a
 *   request that failed authentication (or that needs none: the unknown-route handler) is counted
 *   against the client address, so key guessing is throttled too. When the bucket is over its
 *   limit the answer is 429 - for a failed authentication that means 429 instead of 401 once the
 *   address has failed 120 times in the minute: the guesser learns nothing more until the window
 *   resets. Otherwise the authentication failure is raised now.
 *
 *   A GET of a verified caller changes nothing, so its count runs at the same time as the steps
 *   after this one and the route (one DynamoDB round trip instead of two in a row), and the
 *   outcome is settled when they are done, in the same order as if the count had come first: a
 *   failed count (500), then 429 (the route's result or error discarded), then whatever the later
 *   steps or the route gave. A key this process has seen refused waits for its count again until
 *   the window resets, so a client hammering past its limit does not cost a read per request.
 *   Every other request (writes, failed authentication) is counted before anything else runs.
 * - `rateLimitHeaders` (outermost step): X-RateLimit-Limit/Remaining/Reset (and Retry-After on a
 *   429) on every response, success or error, 500s included.
 */
import { ApiError } from '../domain/errors.js';
import { rateLimitHeaderValues, unknownDecision } from '../domain/rate-windows.js';
import type { RateBucket, RateDecision } from '../domain/rate-windows.js';
import type { Clock } from '../use-cases/ports/clock.js';
import type { RateLimiter } from '../use-cases/ports/rate-limiter.js';
import { withHeaders } from './json-response.js';
import type { HttpMiddleware, HttpMiddyRequest, PipelineInternal, PipelineState } from './pipeline-state.js';
import { findPipelineState, pipelineState } from './pipeline-state.js';

/** How a count ended; a count running alongside the route never rejects, so it is never unhandled. */
type CountResult = { decision: RateDecision } | { error: unknown };

/** This step's key in `request.internal`: the count running alongside the route, if any. */
type CountingInternal = PipelineInternal & { runningCount?: Promise<CountResult> };

/** Keys remembered as refused (per process); past this the memory starts over, which only costs reads. */
const REFUSED_KEYS = 1_000;

export function countRequest(limiter: RateLimiter, clock: Clock): HttpMiddleware {
  /** keyId -> Unix seconds at which the window that refused it resets. */
  const refusedUntil = new Map<string, number>();

  const count = async (bucket: RateBucket, now: Date): Promise<CountResult> => {
    try {
      const decision = await limiter.hit(bucket, now);
      if (bucket.kind === 'key' && !decision.allowed) {
        if (refusedUntil.size >= REFUSED_KEYS) refusedUntil.clear();
        refusedUntil.set(bucket.keyId, decision.resetAt);
      }
      return { decision };
    } catch (error) {
      return { error };
    }
  };

  /** The count running alongside the route, once: later calls (after, then onError) find nothing. */
  const takeRunning = (request: HttpMiddyRequest): Promise<CountResult> | undefined => {
    const internal: CountingInternal = request.internal;
    const result = internal.runningCount;
    delete internal.runningCount;
    return result;
  };

  return {
    name: 'countRequest',
    before: async (request) => {
      const state = pipelineState(request);
      const now = clock.now();
      if (state.caller) {
        const bucket: RateBucket = { kind: 'key', keyId: state.caller.keyId };
        const refused = (refusedUntil.get(bucket.keyId) ?? 0) > now.getTime() / 1000;
        if (state.request.method === 'GET' && !refused) {
          const internal: CountingInternal = request.internal;
          internal.runningCount = count(bucket, now);
          return;
        }
        settle(state, await count(bucket, now));
        return;
      }
      settle(state, await count({ kind: 'address', address: state.request.sourceIp }, now));
    },
    after: async (request) => {
      const result = takeRunning(request);
      // A refusal thrown here discards the route's response: middy then runs the onError steps.
      if (result) settle(pipelineState(request), await result);
    },
    onError: async (request) => {
      const result = takeRunning(request);
      if (!result) return;
      try {
        settle(pipelineState(request), await result);
      } catch (error) {
        // The count's failure or refusal comes before whatever a later step or the route raised.
        request.error = error instanceof Error ? error : new Error(String(error));
      }
    },
  };
}

/** Records the decision for the headers; raises the count's failure, a 429, or the authentication failure. */
function settle(state: PipelineState, result: CountResult): void {
  if ('error' in result) throw result.error;
  const { decision } = result;
  state.rateDecision = decision;
  if (decision.code === 'rate_limit_daily') {
    throw new ApiError('rate_limit_daily', 'Daily request limit reached for this API key. Retry after the time in Retry-After.');
  }
  if (decision.code === 'rate_limit_burst') {
    throw new ApiError('rate_limit_burst', 'Too many requests in this minute. Retry after the time in Retry-After.');
  }
  if (state.authFailure) throw state.authFailure;
}

export function rateLimitHeaders(perMinute: number, clock: Clock): HttpMiddleware {
  const addHeaders = (request: HttpMiddyRequest): void => {
    if (!request.response) return;
    const decision = findPipelineState(request)?.rateDecision ?? unknownDecision(clock.now(), perMinute);
    request.response = withHeaders(request.response, rateLimitHeaderValues(decision));
  };
  return { name: 'rateLimitHeaders', after: addHeaders, onError: addHeaders };
}
