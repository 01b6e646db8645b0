/**
 * The HTTP pipeline every API function shares (API Gateway HTTP API, payload format 2.0):
 *
 *   rateLimitHeaders      outermost: X-RateLimit-* (+ Retry-After on 429) on every response
 *   errorHandler          the one place an error becomes a response
 *   requestContext        the event in our shape (ApiRequest)
 *   authenticate          Bearer key -> caller; a failure waits for the count
 *   countRequest          key bucket (minute + day) or, without a valid key, the address bucket;
 *                         429, else the authentication failure, else on. A verified GET's count
 *                         runs alongside the steps below and the route, and is settled after
 *                         them with the same precedence (see rate-limit.ts)
 *   requireSubscription   403 subscription_inactive
 *   requireScope          403 insufficient_scope (options.scope, default `read`)
 *   jsonBody              options.jsonBody: 400 invalid_body unless the body is a JSON object
 *   route                 (request, caller) => {status, body, headers?}
 *
 * Steps only throw or fall through: none returns an early response, because middy would then
 * skip the `after` steps, and with them the rate-limit headers. Behaviour that needs to answer
 * early (an idempotent replay) does it in the route: lib/use-cases/create-posts.ts returns the
 * stored 202 as the route's own result, so the headers step still runs.
 */
import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { atColdStart } from '../cold-start.js';
import type { Scope } from '../domain/model.js';
import { DEFAULT_RATE_LIMITS, rateLimitHeaderValues, unknownDecision } from '../domain/rate-windows.js';
import { logger } from '../observability.js';
import { systemClock } from '../use-cases/ports/clock.js';
import type { AnonymousRoute, Route } from './api-request.js';
import { authenticate } from './authenticate.js';
import { errorHandler, INTERNAL_ERROR_BODY } from './error-handler.js';
import type { AuthenticatedPipeline, RequestCounting } from './api-pipeline.js';
import { jsonBody } from './json-body.js';
import { toStructuredResult, withHeaders } from './json-response.js';
import type { HttpMiddleware, PipelineContext, PipelineInternal } from './pipeline-state.js';
import { requestContext, routeState, verifiedCaller } from './pipeline-state.js';
import { countRequest, rateLimitHeaders } from './rate-limit.js';
import { requireScope } from './require-scope.js';
import { requireSubscription } from './require-subscription.js';

export type { AnonymousRoute, ApiRequest, ApiResponse, Route } from './api-request.js';

export interface ApiHandlerOptions {
  /**
   * Scope checked before the route runs. Default `read`, which every scope implies. A route whose
   * scope depends on the request (POST /posts) leaves the default and calls requireScope itself.
   */
  scope?: Scope;
  /** Parse the body into `request.body` as a JSON object; anything else is 400 invalid_body. */
  jsonBody?: boolean;
}

/** An authenticated API function, as its module composes it: the pipeline's adapters and the route. */
export interface ApiFunction {
  pipeline: AuthenticatedPipeline;
  route: Route;
}

export type ApiLambdaHandler = (event: APIGatewayProxyEventV2, context: Context) => Promise<APIGatewayProxyStructuredResultV2>;

/**
 * A Lambda handler for an authenticated route. `compose` builds the function's adapters and use
 * case once, at the cold start (lib/cold-start.ts).
 */
export function apiHandler(options: ApiHandlerOptions, compose: () => ApiFunction): ApiLambdaHandler {
  return composedOr500(() => {
    const { pipeline, route } = compose();
    const steps: HttpMiddleware[] = [
      ...outerSteps(pipeline),
      authenticate(pipeline.authenticator),
      countRequest(pipeline.rateLimiter, systemClock),
      requireSubscription(),
      requireScope(options.scope ?? 'read'),
    ];
    if (options.jsonBody) steps.push(jsonBody());
    return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, PipelineContext, PipelineInternal>()
      .use(steps)
      .handler(async (_event, context) => {
        const state = routeState(context);
        return toStructuredResult(await route(state.request, verifiedCaller(state)));
      });
  });
}

/**
 * A Lambda handler that authenticates no one (the unknown-route handler): every request is
 * counted against the client address and carries that bucket's headers. It builds the rate
 * limiter alone (no directory store, no authenticator), so it runs with the counters table only.
 */
export function anonymousApiHandler(compose: () => { pipeline: RequestCounting; route: AnonymousRoute }): ApiLambdaHandler {
  return composedOr500(() => {
    const { pipeline, route } = compose();
    return middy<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, PipelineContext, PipelineInternal>()
      .use([...outerSteps(pipeline), countRequest(pipeline.rateLimiter, systemClock)])
      .handler(async (_event, context) => toStructuredResult(await route(routeState(context).request)));
  });
}

function outerSteps(pipeline: RequestCounting): HttpMiddleware[] {
  // Order matters: middy runs `after`/`onError` in reverse, so the headers step, listed first, runs last.
  return [rateLimitHeaders(pipeline.limits.perMinute, systemClock), errorHandler(), requestContext()];
}

/**
 * Builds the pipeline and the route at the cold start. A composition that failed (a missing
 * environment variable) is a deployment mistake: each invocation logs it and answers the generic
 * 500 in the contract's shape (headers included).
 */
function composedOr500(build: () => ApiLambdaHandler): ApiLambdaHandler {
  const composed = atColdStart(build);
  return async (event, context) => {
    let built: ApiLambdaHandler;
    try {
      built = composed();
    } catch (error) {
      logger.error('API handler could not be built', { error: error instanceof Error ? error : String(error) });
      const response = toStructuredResult({ status: 500, body: INTERNAL_ERROR_BODY });
      return withHeaders(response, rateLimitHeaderValues(unknownDecision(systemClock.now(), DEFAULT_RATE_LIMITS.perMinute)));
    }
    return built(event, context);
  };
}
