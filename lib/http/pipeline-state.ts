/**
 * What the steps of one request hand to each other: the request in our shape, the verified
 * caller (or why authentication failed, which is raised only after the failure has been
 * counted), and the rate-limit decision whose headers every response carries.
 *
 * It is keyed by the event object, because middy gives middlewares the whole request but gives
 * the handler only the event; a WeakMap lets it go with the event when the invocation ends.
 */
import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import type { ApiError } from '../domain/errors.js';
import type { Caller, RateDecision } from '../ports.js';
import type { ApiRequest } from './api-request.js';
import { toApiRequest } from './api-request.js';

export interface PipelineState {
  request: ApiRequest;
  caller: Caller | null;
  /** Authentication failed: raised by the rate-limit step once the address bucket has counted it. */
  authFailure: ApiError | null;
  rateDecision: RateDecision | null;
}

export type HttpMiddleware = middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>;

export type HttpMiddyRequest = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Error, Context>;

const states = new WeakMap<APIGatewayProxyEventV2, PipelineState>();

/** First step of every pipeline: the request in our shape, nothing verified yet. */
export function requestContext(): HttpMiddleware {
  return {
    name: 'requestContext',
    before: (request) => {
      states.set(request.event, { request: toApiRequest(request.event), caller: null, authFailure: null, rateDecision: null });
    },
  };
}

/** The state of this request, or undefined when the very first step failed. */
export function findPipelineState(event: APIGatewayProxyEventV2): PipelineState | undefined {
  return states.get(event);
}

export function pipelineState(request: HttpMiddyRequest | { event: APIGatewayProxyEventV2 }): PipelineState {
  const state = states.get(request.event);
  if (!state) throw new Error('HTTP pipeline state missing: requestContext must be the first step');
  return state;
}

/** The verified caller; only valid after the authenticate and rate-limit steps. */
export function verifiedCaller(state: PipelineState): Caller {
  if (!state.caller) throw new Error('No verified caller: authenticate must run before this step');
  return state.caller;
}
