/** 403 subscription_inactive for a user without an active subscription (checked after the rate limit). */
import { ApiError } from '../domain/errors.js';
import type { HttpMiddleware } from './pipeline-state.js';
import { pipelineState, verifiedCaller } from './pipeline-state.js';

export function requireSubscription(): HttpMiddleware {
  return {
    name: 'requireSubscription',
    before: (request) => {
      const caller = verifiedCaller(pipelineState(request));
      if (!caller.user.active) {
        throw new ApiError('subscription_inactive', 'The account behind this API key has no active subscription.');
      }
    },
  };
}
