/**
 * What the steps of one request hand to each other: the request in our shape, the verified
 * caller (or why authentication failed, which is raised only after the failure has been
 * counted), and the rate-limit decision whose headers every response carries.
 *
 * It lives where middy keeps per-request state: `request.internal`, which middy makes new for
 * each invocation and which its own middlewares use to share values. The handler is given only
 * the event and the Lambda context, so the first step also sets the same object on the context,
 * as middy's middlewares do with their `setToContext` option.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiError } from '../domain/errors.js';
import type { Caller } from '../domain/caller.js';
import type { RateDecision } from '../domain/rate-windows.js';
import type { ApiRequest } from './api-request.js';
import { toApiRequest } from './api-request.js';

export interface PipelineState {
  request: ApiRequest;
  caller: Caller | null;
  /** Authentication failed: raised by the rate-limit step once the address bucket has counted it. */
  authFailure: ApiError | null;
  rateDecision: RateDecision | null;
}

/** `request.internal` of the API pipeline; a step may add its own keys (the rate-limit step does). */
export type PipelineInternal = { pipeline?: PipelineState };

/** The Lambda context as the route handler sees it: `pipeline` is set by the first step. */
export type PipelineContext = Context & { pipeline?: PipelineState };

export type HttpMiddleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, PipelineContext, PipelineInternal>;

export type HttpMiddyRequest = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, PipelineContext, PipelineInternal>;

/** First step of every pipeline: the request in our shape, nothing verified yet. */
export function requestContext(): HttpMiddleware {
  return {
    name: 'requestContext',
    before: (request) => {
      const state: PipelineState = { request: toApiRequest(request.event), caller: null, authFailure: null, rateDecision: null };
      request.internal.pipeline = state;
      request.context.pipeline = state;
    },
  };
}

/** The state of this request, or undefined when the very first step failed. */
export function findPipelineState(request: HttpMiddyRequest): PipelineState | undefined {
  return request.internal.pipeline;
}

export function pipelineState(request: HttpMiddyRequest): PipelineState {
  return present(request.internal.pipeline);
}

/** The state of this request as the route handler reads it, from its context. */
export function routeState(context: PipelineContext): PipelineState {
  return present(context.pipeline);
}

function present(state: PipelineState | undefined): PipelineState {
  if (!state) throw new Error('HTTP pipeline state missing: requestContext must be the first step');
  return state;
}

/** The verified caller; only valid after the authenticate and rate-limit steps. */
export function verifiedCaller(state: PipelineState): Caller {
  if (!state.caller) throw new Error('No verified caller: authenticate must run before this step');
  return state.caller;
}
