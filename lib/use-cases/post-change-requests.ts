/**
 * What PATCH, publish and retry share beyond their Idempotency-Key (idempotent-request.ts): the
 * re-read after a write that lost a race, so the 409 says what the post became.
 */
import { ApiError } from '../domain/errors.js';

/** A lost race is re-read and decided again; the post has few states, so this is never reached in practice. */
export const MAX_CHANGE_ATTEMPTS = 4;

export function keptChanging(code: 'post_not_editable' | 'post_not_retryable'): ApiError {
  return new ApiError(code, 'The post kept changing while this request ran; read it again and decide.', { param: 'id' });
}

