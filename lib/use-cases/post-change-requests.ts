/**
 * What PATCH, publish and retry share (lib/use-cases/update-post.ts, publish-draft.ts,
 * retry-post.ts): the Idempotency-Key as on a create (claimed before anything is checked, its
 * answer remembered in the same write as the change, released when the answer is an error), and
 * the re-read after a write that lost a race, so the 409 says what the post became.
 *
 * The key's record hashes the method and path with the body: the same key sent to another post,
 * or to another action, is a different request (422 idempotency_key_reused), never a replay.
 */
import { ApiError } from '../domain/errors.js';
import { bodyHash, parseIdempotencyKey } from '../domain/idempotency.js';
import type { IdempotencyLock } from '../domain/idempotency-record.js';
import { logger } from '../observability.js';
import type { Caller } from '../domain/caller.js';
import type { IdempotencyStore } from './ports/idempotency-store.js';

/** A change's answer: 200 with the post, or the remembered one replayed (Idempotent-Replayed: true). */
export interface PostChangeOutcome {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** A lost race is re-read and decided again; the post has few states, so this is never reached in practice. */
export const MAX_CHANGE_ATTEMPTS = 4;

/**
 * Runs `change` under the request's Idempotency-Key (none: just runs it). `change` gets the lock
 * to complete in its write and marks `progress.remembered` once that write is done.
 */
export async function idempotentChange(
  idempotency: IdempotencyStore,
  caller: Caller,
  request: { method: string; path: string; body: unknown; idempotencyKey: string | undefined; now: Date },
  change: (lock: IdempotencyLock | null, progress: { remembered: boolean }) => Promise<PostChangeOutcome>,
): Promise<PostChangeOutcome> {
  const key = parseIdempotencyKey(request.idempotencyKey);
  let lock: IdempotencyLock | null = null;
  if (key !== null) {
    const claim = await idempotency.claim(caller.userId, key, bodyHash({ method: request.method, path: request.path, body: request.body ?? null }), request.now);
    switch (claim.outcome) {
      case 'replay':
        return { ...claim.response, headers: { 'Idempotent-Replayed': 'true' } };
      case 'in_flight':
        throw new ApiError('idempotency_in_flight', 'A request with this Idempotency-Key is still running; retry once it has finished.', { param: 'Idempotency-Key' });
      case 'body_mismatch':
        throw new ApiError('idempotency_key_reused', 'This Idempotency-Key was used with a different request; use a new key.', { param: 'Idempotency-Key' });
      case 'started':
        lock = claim.lock;
    }
  }
  const progress = { remembered: false };
  try {
    return await change(lock, progress);
  } catch (error) {
    if (lock && !progress.remembered) {
      await idempotency.release(lock).catch((releaseError: unknown) => {
        logger.warn('Could not release an idempotency record; it unlocks when its lock expires', { error: releaseError as Error });
      });
    }
    throw error;
  }
}

export function keptChanging(code: 'post_not_editable' | 'post_not_retryable'): ApiError {
  return new ApiError(code, 'The post kept changing while this request ran; read it again and decide.', { param: 'id' });
}

/**
 * The idempotency store of callers that never send an Idempotency-Key: the settings buttons, whose
 * second click is refused by the change's own condition (409). Asked to claim a key, it refuses:
 * such a caller was built wrong.
 */
export const WITHOUT_IDEMPOTENCY_KEYS: IdempotencyStore = {
  claim: () => Promise.reject(new Error('This caller sends no Idempotency-Key')),
  release: () => Promise.resolve(),
};
