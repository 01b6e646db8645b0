/**
 * The one place an error becomes a response. An ApiError (thrown by a use case, a middleware or a
 * route) gives its own status, `{error: {type, code, message, param}}` body and headers. Anything
 * else is a bug or a failing dependency: the caller gets the generic 500 of the contract with
 * nothing internal in it (no stack, no class or table names), and the real error goes to the log
 * with the request's method, path and id. Headers are never logged, so the Authorization header
 * (the API key) cannot end up in a log line.
 */
import { ApiError } from '../domain/errors.js';
import { logger } from '../observability.js';
import { toStructuredResult } from './json-response.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { findPipelineState } from './pipeline-state.js';

export const INTERNAL_ERROR_BODY = {
  error: {
    type: 'api_error',
    code: 'internal_error',
    message: 'An internal error occurred. It is safe to retry with the same Idempotency-Key.',
    param: null,
  },
} as const;

export function errorHandler(): HttpMiddleware {
  return {
    name: 'errorHandler',
    onError: (request) => {
      const error: unknown = request.error;
      const state = findPipelineState(request);
      if (error instanceof ApiError && error.status < 500) {
        logger.debug('Request refused', { code: error.code, status: error.status, requestId: state?.request.requestId });
        request.response = toStructuredResult({ status: error.status, body: error.toBody(), headers: error.headers ?? {} });
        // Returning nothing lets the outer rate-limit-headers step still add its headers.
        return;
      }
      logger.error('Request failed', {
        method: state?.request.method,
        path: state?.request.path,
        requestId: state?.request.requestId,
        keyId: state?.caller?.keyId,
        error: error instanceof Error ? error : String(error),
      });
      request.response = toStructuredResult({ status: 500, body: INTERNAL_ERROR_BODY });
    },
  };
}
